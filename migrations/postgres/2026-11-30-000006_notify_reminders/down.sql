DROP TABLE responder_reminders;
