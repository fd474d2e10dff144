DROP TABLE imported_records;
