DROP TABLE mirrors;
DROP TABLE mirror_sources;
