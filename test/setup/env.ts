// Environment for every test file (before any module loads).
process.env.NODE_ENV = 'test';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
process.env.SANDBOX_PLATFORMS = 'true';
process.env.OUTBOX_POLL_MS = '100';
process.env.DB_MIGRATE_ON_START = 'false';
