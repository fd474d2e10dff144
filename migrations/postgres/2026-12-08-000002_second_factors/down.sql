DROP TABLE user_recovery_codes;
DROP TABLE user_totp;
