#!/usr/bin/env node
/**
 * `sps`: the command-line client. Reads SPS_API_KEY and SPS_BASE_URL; prints JSON; on failure
 * prints `code: message (requestId)` to stderr and exits 1.
 *
 *   sps profiles list
 *   sps accounts list
 *   sps accounts limits acc_1
 *   sps posts create --text "Hello" --accounts acc_1,acc_2 --now
 *   sps posts list --state failed --all
 *   sps posts retry <id>
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { QueryOf, SpsClient } from './client';
import { SpsApiError } from './errors';
import { collect } from './pagination';

interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
}

interface ListOptions {
  page?: number;
  limit?: number;
  all?: boolean;
}

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const csv = (value: string): string[] =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
const isoDate = (value: string): string => {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('must be an ISO 8601 date-time');
  return value;
};

export function buildProgram(
  env: NodeJS.ProcessEnv = process.env,
  out: (text: string) => void = (t) => process.stdout.write(t),
): Command {
  const program = new Command('sps')
    .description('Social Publishing Service command-line client')
    .version('1.0.0')
    .option('--api-key <key>', 'API key (default: $SPS_API_KEY)')
    .option('--base-url <url>', 'service address (default: $SPS_BASE_URL or http://localhost:3000)')
    .option('--profile <id>', "profile to act on (default: the key's home profile)")
    .showHelpAfterError();

  const client = (): SpsClient => {
    const g = program.opts<GlobalOptions>();
    const apiKey = g.apiKey ?? env.SPS_API_KEY;
    if (!apiKey)
      throw new SpsApiError('authentication_required', 'No API key: set SPS_API_KEY or pass --api-key.', 0, null);
    return new SpsClient({ apiKey, baseUrl: g.baseUrl ?? env.SPS_BASE_URL, profileId: g.profile });
  };
  const print = (value: unknown): void => out(`${JSON.stringify(value, null, 2)}\n`);
  const listOptions = (cmd: Command): Command =>
    cmd
      .option('--page <n>', 'page number', positiveInt)
      .option('--limit <n>', 'results per page (max 100)', positiveInt)
      .option('--all', 'fetch every page and print the items as one array');
  const pageQuery = (o: ListOptions) => ({ page: o.page, limit: o.limit });

  const profiles = program.command('profiles').description('profiles of the workspace');
  listOptions(profiles.command('list').description('list profiles')).action(async (o: ListOptions) =>
    print(
      o.all ? await collect(client().profiles.iterate({ limit: o.limit })) : await client().profiles.list(pageQuery(o)),
    ),
  );
  profiles
    .command('get [id]')
    .description('get a profile (default: the current one)')
    .action(async (id?: string) => print(id ? await client().profiles.get(id) : await client().profiles.current()));

  const queue = program.command('queue').description("the profile's posting queue");
  queue
    .command('get')
    .description('show the queue: time zone and weekly slots')
    .action(async () => print(await client().queue.get()));
  queue
    .command('set')
    .description('replace the queue, e.g. --timezone Europe/Berlin --slots mon@09:00,wed@17:30')
    .requiredOption('--timezone <zone>', 'IANA time zone of the slot times')
    .requiredOption('--slots <list>', 'comma-separated day@HH:MM (day: mon … sun); empty clears', (v: string) =>
      v
        .split(',')
        .filter((x) => x.trim() !== '')
        .map((x) => {
          const [day, time] = x.trim().split('@');
          if (!day || !time) throw new InvalidArgumentError(`'${x}' is not day@HH:MM`);
          return { day, time };
        }),
    )
    .action(async (o: { timezone: string; slots: { day: string; time: string }[] }) =>
      print(
        await client().queue.set({ timezone: o.timezone, slots: o.slots } as Parameters<SpsClient['queue']['set']>[0]),
      ),
    );
  queue
    .command('next')
    .description('the next free slot times (UTC)')
    .option('--count <n>', 'how many (1-50, default 5)', (v: string) => Number(v))
    .action(async (o: { count?: number }) => print(await client().queue.nextSlots(o.count ? { count: o.count } : {})));

  const keys = program.command('keys').alias('api-keys').description('API keys');
  listOptions(keys.command('list').description('list API keys (never their secrets)')).action(async (o: ListOptions) =>
    print(
      o.all ? await collect(client().apiKeys.iterate({ limit: o.limit })) : await client().apiKeys.list(pageQuery(o)),
    ),
  );

  const accounts = program.command('accounts').description('connected social accounts');
  accounts
    .command('list')
    .description('list connected accounts')
    .action(async () => print(await client().accounts.list()));
  accounts
    .command('limits <id>')
    .description("the network's publishing caps for an account and how much of each is used")
    .action(async (id: string) => print(await client().accounts.limits(id)));

  const posts = program.command('posts').description('posts');
  listOptions(
    posts
      .command('list')
      .description('list posts')
      .option('--state <state>', 'only posts in this state')
      .option('--platform <platform>', 'only posts targeting this platform')
      .option('--content-type <type>', 'text, image or video'),
  ).action(async (o: ListOptions & { state?: string; platform?: string; contentType?: string }) => {
    // Values are checked by the service (400 invalid_request names the field).
    const filters = { state: o.state, platform: o.platform, contentType: o.contentType } as QueryOf<'/v1/posts'>;
    print(
      o.all
        ? await collect(client().posts.iterate({ ...filters, limit: o.limit }))
        : await client().posts.list({ ...filters, ...pageQuery(o) }),
    );
  });
  posts
    .command('get <id>')
    .description('get a post')
    .action(async (id: string) => print(await client().posts.get(id)));
  const postBody = (o: {
    text: string;
    accounts: string[];
    now?: boolean;
    at?: string;
    queue?: boolean;
    media?: string[];
    firstComment?: string;
  }) => ({
    content: o.text,
    accountIds: o.accounts,
    ...(o.now ? { publishNow: true } : {}),
    ...(o.queue ? { addToQueue: true } : {}),
    ...(o.at ? { scheduledAt: o.at } : {}),
    ...(o.media ? { mediaUrls: o.media } : {}),
    ...(o.firstComment !== undefined ? { firstComment: o.firstComment } : {}),
  });
  posts
    .command('create')
    .description('create a post: a draft, or published now (--now), or scheduled (--at)')
    .requiredOption('--text <text>', 'post text')
    .requiredOption('--accounts <ids>', 'comma-separated account ids', csv)
    .addOption(new Option('--now', 'publish immediately').conflicts('at'))
    .addOption(new Option('--at <iso>', 'schedule for this ISO 8601 date-time').argParser(isoDate))
    .addOption(new Option('--queue', "schedule at the queue's next free slot").conflicts(['now', 'at']))
    .option('--media <urls>', 'comma-separated public media URLs', csv)
    .option('--first-comment <text>', 'comment each account posts on its item once published (not on TikTok)')
    .option('--idempotency-key <key>', 'Idempotency-Key (default: generated)')
    .action(
      async (o: {
        text: string;
        accounts: string[];
        now?: boolean;
        at?: string;
        queue?: boolean;
        media?: string[];
        firstComment?: string;
        idempotencyKey?: string;
      }) => print(await client().posts.create(postBody(o), { idempotencyKey: o.idempotencyKey })),
    );
  posts
    .command('validate')
    .description("run the networks' checks on a post without creating it")
    .requiredOption('--text <text>', 'post text')
    .requiredOption('--accounts <ids>', 'comma-separated account ids', csv)
    .option('--media <urls>', 'comma-separated public media URLs', csv)
    .option('--first-comment <text>', 'the first comment to check (TikTok accounts refuse one)')
    .action(async (o: { text: string; accounts: string[]; media?: string[]; firstComment?: string }) =>
      print(await client().posts.validate(postBody(o))),
    );
  posts
    .command('bulk')
    .description('create up to 100 posts from a JSON file (an array of posts, or { posts }), all or nothing')
    .requiredOption('--file <path>', "JSON file; '-' reads standard input")
    .option('--dry-run', 'run every check and create nothing')
    .option('--idempotency-key <key>', 'Idempotency-Key (default: generated)')
    .action(async (o: { file: string; dryRun?: boolean; idempotencyKey?: string }) => {
      const parsed = JSON.parse(readFileSync(o.file === '-' ? 0 : o.file, 'utf8')) as unknown;
      const list = Array.isArray(parsed) ? parsed : (parsed as { posts?: unknown }).posts;
      if (!Array.isArray(list))
        throw new InvalidArgumentError('the file must hold an array of posts or { "posts": [...] }');
      const body = { posts: list, ...(o.dryRun ? { dryRun: true } : {}) } as Parameters<SpsClient['posts']['bulk']>[0];
      print(await client().posts.bulk(body, { idempotencyKey: o.idempotencyKey }));
    });
  for (const [name, description] of [
    ['retry', 'requeue a failed or partially published post'],
    ['cancel', 'cancel a scheduled or queued post'],
    ['publish', 'publish a draft, scheduled or approved post now'],
  ] as const) {
    posts
      .command(`${name} <id>`)
      .description(description)
      .option('--idempotency-key <key>', 'Idempotency-Key (default: generated)')
      .action(async (id: string, o: { idempotencyKey?: string }) =>
        print(await client().posts[name](id, { idempotencyKey: o.idempotencyKey })),
      );
  }
  posts
    .command('history <id>')
    .description("a post's state changes")
    .action(async (id: string) => print(await client().posts.history(id)));

  const webhooks = program.command('webhooks').description('webhook subscriptions');
  webhooks
    .command('list')
    .description('list webhook subscriptions')
    .action(async () => print(await client().webhooks.list()));

  const events = program.command('events').description('audit trail');
  listOptions(
    events.command('list').description('list audit events').option('--type <type>', 'only events of this type'),
  ).action(async (o: ListOptions & { type?: string }) =>
    print(
      o.all
        ? await collect(client().events.iterate({ type: o.type, limit: o.limit }))
        : await client().events.list({ type: o.type, ...pageQuery(o) }),
    ),
  );

  return program;
}

/** Runs the CLI; resolves to the exit code. */
export async function run(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    await buildProgram(env).parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof SpsApiError) {
      process.stderr.write(`${err.toString()}\n`);
      return err.status === 0 && err.code === 'authentication_required' ? 2 : 1;
    }
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

if (require.main === module) {
  void run().then((code) => {
    process.exitCode = code;
  });
}
