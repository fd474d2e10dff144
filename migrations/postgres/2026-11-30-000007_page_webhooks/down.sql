DROP TABLE page_webhooks;
