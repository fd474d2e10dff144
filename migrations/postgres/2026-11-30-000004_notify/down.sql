DROP TABLE deliveries;
DROP TABLE notification_event_components;
DROP TABLE notification_events;
DROP TABLE subscriber_components;
DROP TABLE subscribers;
