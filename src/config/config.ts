import { existsSync } from 'node:fs';
import { z } from 'zod';

/** Caps on media the worker downloads to push to a network (MEDIA_MAX_*_BYTES, MEDIA_DOWNLOAD_TIMEOUT_MS). */
export interface MediaLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
  /** For all the media of one target together. */
  timeoutMs: number;
}

/** Every environment variable the service reads. `process.env` is read here and nowhere else. */
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

const csvInts = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const parts = v.split(',').map((p) => Number(p.trim()));
      if (parts.some((n) => !Number.isInteger(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of non-negative integers' });
        return z.NEVER;
      }
      return parts;
    });

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    PUBLIC_BASE_URL: z.string().url().optional(),
    DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/social_publishing'),
    DB_MIGRATE_ON_START: bool(true),
    DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    REDIS_PREFIX: z.string().min(1).default('sps'),
    PROCESS_ROLE: z.enum(['api', 'worker', 'all']).default('all'),
    SANDBOX_PLATFORMS: z.enum(['true', 'false', '1', '0']).optional(),
    SANDBOX_AUTO_CONSENT: bool(true),
    SANDBOX_NETWORK_URL: z.string().url().optional(),
    WEBHOOK_ALLOW_PRIVATE_URLS: bool(false),
    WEBHOOK_RETRY_DELAYS_MS: csvInts('30000,120000,600000,3600000,21600000,86400000').refine(
      (d) => d.length === 6,
      'must list exactly 6 delays (7 attempts)',
    ),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
    WEBHOOK_CONCURRENCY_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(10),
    TOKEN_ENCRYPTION_KEY: z
      .string()
      .refine(
        (k) => Buffer.from(k, 'base64').length === 32,
        'must be 32 bytes, base64-encoded (openssl rand -base64 32)',
      )
      .optional(),
    TOKEN_ENCRYPTION_KEY_ID: z.string().min(1).max(32).default('k1'),
    TOKEN_ENCRYPTION_OLD_KEYS: z.string().default(''),
    MEDIA_STORAGE: z.enum(['local', 's3']).default('local'),
    MEDIA_LOCAL_DIR: z.string().default('./var/media'),
    MEDIA_ALLOW_PRIVATE_URLS: bool(false),
    MEDIA_MAX_CONCURRENT_UPLOADS: z.coerce.number().int().min(1).max(1000).default(8),
    MEDIA_MAX_IMAGE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(20 * 1024 * 1024),
    MEDIA_MAX_VIDEO_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(256 * 1024 * 1024),
    MEDIA_DOWNLOAD_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
    S3_BUCKET: z.string().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ENDPOINT: z.string().url().optional(),
    S3_ACCESS_KEY_ID: z.string().optional(),
    S3_SECRET_ACCESS_KEY: z.string().optional(),
    DOCS_BASE_URL: z.string().url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT: z
      .string()
      .regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i, 'must be a size such as 100kb or 1mb')
      .default('1mb'),
    OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(500),
    SCHEDULER_SWEEP_MS: z.coerce.number().int().min(100).default(30000),
    NETWORK_PROCESSING_WAIT_MS: z.coerce.number().int().min(0).default(65000),
    NETWORK_CHECK_BASE_MS: z.coerce.number().int().min(10).default(15000),
    NETWORK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
    SANDBOX_REVIEW_MS: z.coerce.number().int().min(0).default(180000),
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(16),
    RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(1000),
    // Operators: /metrics and /queues need this token (Bearer, or Basic with it as the password); unset = both off.
    OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    // Worker role: serve /metrics on this port (the worker has no HTTP server otherwise); unset = none.
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    // Publishing caps other than the networks' documented figures: `<network>.<cap>=<n>,…`
    // (e.g. tiktok.posts_per_day=25 where TikTok told you yours; tests set small ones).
    NETWORK_CAPS: z
      .string()
      .default('')
      .refine((v) => v.split(',').every((p) => p.trim() === '' || /^[a-z]+\.[a-z0-9_]+=\d+$/.test(p.trim())), {
        message: 'must be <network>.<cap>=<number>, comma-separated',
      }),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.TOKEN_ENCRYPTION_KEY) {
      ctx.addIssue({ code: 'custom', path: ['TOKEN_ENCRYPTION_KEY'], message: 'is required in production' });
    }
    if (env.MEDIA_STORAGE === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when MEDIA_STORAGE=s3' });
    }
  });

type Env = z.infer<typeof configSchema>;

/** A development-only key so the sandbox runs out of the box; production must set its own. */
const DEV_TOKEN_KEY = Buffer.alloc(32, 7).toString('base64');

export class AppConfig {
  readonly env: Env['NODE_ENV'];
  readonly port: number;
  readonly publicBaseUrl: string;
  readonly databaseUrl: string;
  readonly migrateOnStart: boolean;
  readonly dbPoolSize: number;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly role: Env['PROCESS_ROLE'];
  /** `networkUrl`: where sandbox-mode adapters send their calls (default: this service's own /sandbox). */
  readonly sandbox: { enabled: boolean; autoConsent: boolean; networkUrl: string; reviewMs: number };
  /**
   * processingWaitMs: how long a publish attempt waits for a network's processing;
   * checkBaseMs: first follow-up check of a target waiting on the network (doubling, ≤ 15 min, 24 h in all);
   * networkConcurrency: publish calls in flight per network at once, across every worker process.
   */
  readonly publishing: { processingWaitMs: number; checkBaseMs: number; networkConcurrency: number };
  readonly webhooks: {
    allowPrivateUrls: boolean;
    retryDelaysMs: number[];
    timeoutMs: number;
    /** Deliveries of one workspace in flight at once, across every worker process. */
    concurrencyPerWorkspace: number;
  };
  readonly tokenKeys: { currentId: string; keys: Record<string, Buffer> };
  /**
   * Adapters downloading posts' media URLs: private/loopback hosts only with the sandbox on or
   * allowPrivateUrls; at most max{Image,Video}Bytes per file; all of a target's media within timeoutMs.
   */
  readonly mediaDownloads: { allowPrivateUrls: boolean } & MediaLimits;
  readonly media: Pick<
    Env,
    | 'MEDIA_STORAGE'
    | 'MEDIA_LOCAL_DIR'
    | 'MEDIA_MAX_CONCURRENT_UPLOADS'
    | 'S3_BUCKET'
    | 'S3_REGION'
    | 'S3_ENDPOINT'
    | 'S3_ACCESS_KEY_ID'
    | 'S3_SECRET_ACCESS_KEY'
  >;
  readonly docsBaseUrl: string;
  readonly logLevel: Env['LOG_LEVEL'];
  readonly bodyLimit: string;
  readonly outboxPollMs: number;
  readonly schedulerSweepMs: number;
  readonly rateLimit: { perMinute: number; perHour: number };
  /** /metrics and /queues: off unless an operator token is configured. */
  readonly operator: { token: string | undefined; metricsPort: number | undefined };
  /** NETWORK_CAPS: `<network>.<cap>` → limit, replacing the documented figure of that cap. */
  readonly networkCaps: Record<string, number>;
  /** Variables outside the schema: network app credentials, named by each network's definition (see `setting`). */
  private readonly unlisted: Readonly<Record<string, string>>;

  constructor(env: Env, unlisted: Record<string, string> = {}) {
    this.unlisted = unlisted;
    this.env = env.NODE_ENV;
    this.port = env.PORT;
    this.publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
    this.databaseUrl = env.DATABASE_URL;
    this.migrateOnStart = env.DB_MIGRATE_ON_START;
    this.dbPoolSize = env.DB_POOL_SIZE;
    this.redisUrl = env.REDIS_URL;
    this.redisPrefix = env.REDIS_PREFIX;
    this.role = env.PROCESS_ROLE;
    const sandboxDefault = env.NODE_ENV !== 'production';
    this.sandbox = {
      enabled: env.SANDBOX_PLATFORMS === undefined ? sandboxDefault : ['true', '1'].includes(env.SANDBOX_PLATFORMS),
      autoConsent: env.SANDBOX_AUTO_CONSENT,
      networkUrl: (env.SANDBOX_NETWORK_URL ?? this.publicBaseUrl).replace(/\/$/, ''),
      reviewMs: env.SANDBOX_REVIEW_MS,
    };
    this.publishing = {
      processingWaitMs: env.NETWORK_PROCESSING_WAIT_MS,
      checkBaseMs: env.NETWORK_CHECK_BASE_MS,
      networkConcurrency: env.NETWORK_CONCURRENCY,
    };
    this.webhooks = {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
      retryDelaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      concurrencyPerWorkspace: env.WEBHOOK_CONCURRENCY_PER_WORKSPACE,
    };
    const keys: Record<string, Buffer> = {};
    for (const pair of env.TOKEN_ENCRYPTION_OLD_KEYS.split(',').filter(Boolean)) {
      const [id, b64] = pair.split(':');
      if (id && b64) keys[id] = Buffer.from(b64, 'base64');
    }
    keys[env.TOKEN_ENCRYPTION_KEY_ID] = Buffer.from(env.TOKEN_ENCRYPTION_KEY ?? DEV_TOKEN_KEY, 'base64');
    this.tokenKeys = { currentId: env.TOKEN_ENCRYPTION_KEY_ID, keys };
    this.mediaDownloads = {
      allowPrivateUrls: env.MEDIA_ALLOW_PRIVATE_URLS,
      maxImageBytes: env.MEDIA_MAX_IMAGE_BYTES,
      maxVideoBytes: env.MEDIA_MAX_VIDEO_BYTES,
      timeoutMs: env.MEDIA_DOWNLOAD_TIMEOUT_MS,
    };
    this.media = {
      MEDIA_STORAGE: env.MEDIA_STORAGE,
      MEDIA_LOCAL_DIR: env.MEDIA_LOCAL_DIR,
      MEDIA_MAX_CONCURRENT_UPLOADS: env.MEDIA_MAX_CONCURRENT_UPLOADS,
      S3_BUCKET: env.S3_BUCKET,
      S3_REGION: env.S3_REGION,
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY_ID: env.S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: env.S3_SECRET_ACCESS_KEY,
    };
    this.docsBaseUrl = (env.DOCS_BASE_URL ?? `${this.publicBaseUrl}/errors`).replace(/\/$/, '');
    this.logLevel = env.LOG_LEVEL;
    this.bodyLimit = env.BODY_LIMIT;
    this.outboxPollMs = env.OUTBOX_POLL_MS;
    this.schedulerSweepMs = env.SCHEDULER_SWEEP_MS;
    this.rateLimit = { perMinute: env.RATE_LIMIT_PER_MINUTE, perHour: env.RATE_LIMIT_PER_HOUR };
    this.operator = { token: env.OPERATOR_TOKEN, metricsPort: env.METRICS_PORT };
    this.networkCaps = Object.fromEntries(
      env.NETWORK_CAPS.split(',')
        .map((p) => p.trim().split('='))
        .filter((kv): kv is [string, string] => kv.length === 2)
        .map(([k, v]) => [k, Number(v)]),
    );
  }

  /**
   * A free-form variable the schema does not list, or `fallback` when it is unset or empty: a
   * network app's client id and secret, whose names each network's definition declares
   * (src/modules/networks/<network>/<network>.network.ts), so adding a network touches no config.
   */
  setting(name: string, fallback: string): string {
    return this.unlisted[name] ?? fallback;
  }

  get runsApi(): boolean {
    return this.role === 'api' || this.role === 'all';
  }

  get runsWorker(): boolean {
    return this.role === 'worker' || this.role === 'all';
  }
}

export class ConfigError extends Error {}

/** One line per bad variable: `  PORT: must be … (got "abc")`. */
export function describeConfigIssues(issues: readonly z.core.$ZodIssue[], input: Record<string, unknown>): string[] {
  return issues.map((i) => {
    const name = i.path.join('.') || '(env)';
    const value = i.path.length === 1 ? input[String(i.path[0])] : undefined;
    const shown =
      typeof value === 'string' && !/KEY|SECRET|PASSWORD/.test(name)
        ? ` (got ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`
        : '';
    return `  ${name}: ${i.message}${shown}`;
  });
}

/**
 * Parses the environment; throws a ConfigError listing one line per bad variable. An empty
 * value counts as unset (so a copied .env.example with `DOCS_BASE_URL=` means the default).
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, overrides: Record<string, string> = {}): AppConfig {
  const input = Object.fromEntries(
    Object.entries({ ...source, ...overrides }).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(`Invalid configuration:\n${describeConfigIssues(parsed.error.issues, input).join('\n')}`);
  }
  return new AppConfig(parsed.data, input as Record<string, string>);
}

/**
 * Entry points (server, CLI, migrations) read `./.env` when present; variables already set in
 * the environment win. Under NODE_ENV=test the file is ignored (tests set what they need).
 */
export function loadDotEnv(path = '.env'): void {
  if (process.env.NODE_ENV !== 'test' && existsSync(path)) process.loadEnvFile(path);
}
