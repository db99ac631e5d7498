import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError, loadConfig } from './config';

const load = (env: Record<string, string>) => loadConfig({}, env);

function problems(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('should apply the documented defaults', () => {
    const c = load({});
    expect(c).toMatchObject({
      env: 'development',
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/social_publishing',
      migrateOnStart: true,
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'sps',
      role: 'all',
      sandbox: { enabled: true, autoConsent: true },
      webhooks: {
        allowPrivateUrls: false,
        retryDelaysMs: [30000, 120000, 600000, 3600000, 21600000, 86400000],
        timeoutMs: 10000,
      },
      publishing: { processingWaitMs: 65000, checkBaseMs: 15000, networkConcurrency: 8 },
      docsBaseUrl: 'http://localhost:3000/errors',
      bodyLimit: '1mb',
      rateLimit: { perMinute: 16, perHour: 1000 },
    });
    expect(c.runsApi && c.runsWorker).toBe(true);
    expect(c.tokenKeys.keys.k1).toHaveLength(32);
  });

  it('should derive URLs from PORT and PUBLIC_BASE_URL (without a trailing slash)', () => {
    expect(load({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    const c = load({ PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(c.publicBaseUrl).toBe('https://api.example.com');
    expect(c.docsBaseUrl).toBe('https://api.example.com/errors');
    expect(load({ DOCS_BASE_URL: 'https://docs.example.com/errors/' }).docsBaseUrl).toBe(
      'https://docs.example.com/errors',
    );
  });

  it('should treat empty values as unset (a copied .env.example works)', () => {
    const c = load({
      DOCS_BASE_URL: '',
      TOKEN_ENCRYPTION_KEY: '',
      S3_ENDPOINT: '',
      S3_BUCKET: '',
      PUBLIC_BASE_URL: '',
    });
    expect(c.docsBaseUrl).toBe('http://localhost:3000/errors');
    expect(c.tokenKeys.keys.k1).toHaveLength(32);
  });

  it('should give one clear line per bad variable', () => {
    const lines = problems({
      PORT: 'eighty',
      REDIS_URL: 'nope',
      PROCESS_ROLE: 'both',
      SANDBOX_PLATFORMS: 'yes',
      RATE_LIMIT_PER_MINUTE: '0',
      BODY_LIMIT: 'lots',
    });
    expect(lines).toHaveLength(6);
    expect(lines.find((l) => l.startsWith('PORT:'))).toContain('"eighty"');
    expect(lines.some((l) => l.startsWith('REDIS_URL:'))).toBe(true);
    expect(lines.find((l) => l.startsWith('PROCESS_ROLE:'))).toMatch(/api.*worker.*all/);
    expect(lines.some((l) => l.startsWith('SANDBOX_PLATFORMS:'))).toBe(true);
    expect(lines.some((l) => l.startsWith('RATE_LIMIT_PER_MINUTE:'))).toBe(true);
    expect(lines.find((l) => l.startsWith('BODY_LIMIT:'))).toContain('100kb or 1mb');
  });

  it('should require exactly six webhook retry delays of whole milliseconds', () => {
    expect(problems({ WEBHOOK_RETRY_DELAYS_MS: '1,2,3' })).toEqual([
      'WEBHOOK_RETRY_DELAYS_MS: must list exactly 6 delays (7 attempts) (got "1,2,3")',
    ]);
    expect(problems({ WEBHOOK_RETRY_DELAYS_MS: '1,2,3,4,5,x' })[0]).toMatch(
      /^WEBHOOK_RETRY_DELAYS_MS: must be a comma-separated list/,
    );
    expect(load({ WEBHOOK_RETRY_DELAYS_MS: '10,20,30,40,50,60' }).webhooks.retryDelaysMs).toEqual([
      10, 20, 30, 40, 50, 60,
    ]);
  });

  it('should require a 32-byte TOKEN_ENCRYPTION_KEY in production, and never echo it', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual(['TOKEN_ENCRYPTION_KEY: is required in production']);
    const short = problems({ TOKEN_ENCRYPTION_KEY: Buffer.alloc(16, 1).toString('base64') });
    expect(short).toEqual(['TOKEN_ENCRYPTION_KEY: must be 32 bytes, base64-encoded (openssl rand -base64 32)']);
    const key = Buffer.alloc(32, 9).toString('base64');
    const c = load({
      NODE_ENV: 'production',
      TOKEN_ENCRYPTION_KEY: key,
      TOKEN_ENCRYPTION_KEY_ID: 'k2',
      TOKEN_ENCRYPTION_OLD_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
    });
    expect(c.tokenKeys.currentId).toBe('k2');
    expect(Object.keys(c.tokenKeys.keys).sort()).toEqual(['k1', 'k2']);
    expect(c.sandbox.enabled).toBe(false); // off by default in production
  });

  it('should require S3_BUCKET for MEDIA_STORAGE=s3', () => {
    expect(problems({ MEDIA_STORAGE: 's3' })).toEqual(['S3_BUCKET: is required when MEDIA_STORAGE=s3']);
    expect(load({ MEDIA_STORAGE: 's3', S3_BUCKET: 'media' }).media.S3_BUCKET).toBe('media');
  });

  it('should parse booleans and roles', () => {
    expect(
      load({ DB_MIGRATE_ON_START: 'false', SANDBOX_AUTO_CONSENT: '0', WEBHOOK_ALLOW_PRIVATE_URLS: '1' }),
    ).toMatchObject({
      migrateOnStart: false,
      sandbox: { autoConsent: false },
      webhooks: { allowPrivateUrls: true },
    });
    expect(load({ PROCESS_ROLE: 'worker' })).toMatchObject({ runsApi: false, runsWorker: true });
    expect(load({ PROCESS_ROLE: 'api' })).toMatchObject({ runsApi: true, runsWorker: false });
    expect(problems({ DB_MIGRATE_ON_START: 'yes' })[0]).toMatch(/^DB_MIGRATE_ON_START:/);
  });

  it('should accept .env.example as it stands, and list every variable it reads there', () => {
    const text = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8');
    const example = parseEnv(text) as Record<string, string>;
    expect(() => loadConfig({}, example)).not.toThrow();
    const source = readFileSync(join(__dirname, 'config.ts'), 'utf8');
    const read = [...source.matchAll(/^ {4}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(30);
    expect(read.filter((k) => !(k in example))).toEqual([]);
  });

  it('should let overrides win over the source environment', () => {
    expect(loadConfig({ PORT: '1' }, { PORT: '2' }).port).toBe(2);
  });
});
