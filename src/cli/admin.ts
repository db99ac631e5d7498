/**
 * Operator CLI (what a dashboard would do), working on the database directly:
 *   npm run admin -- bootstrap [--workspace NAME] [--email EMAIL] [--plan PLAN] [--rate-limit N] [--json]
 *   npm run admin -- plan --workspace ID --plan PLAN [--trial-ends ISO] [--json]
 *   npm run admin -- user --workspace ID --email EMAIL [--role owner|admin|member] [--json]
 *   npm run admin -- key --workspace ID [--profile ID] [--email OWNER] [--permissions a,b] [--rate-limit N] [--name NAME] [--json]
 *   npm run admin -- rate-limit --key ID --rate-limit N [--json]
 *   npm run admin -- workspaces [--json]
 * Reads DATABASE_URL (and ./.env); applies pending migrations first. Exit code 1 on any error.
 */
import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import IORedis from 'ioredis';
import { DataSource, IsNull } from 'typeorm';
import { loadConfig, loadDotEnv } from '../config/config';
import { createDataSource } from '../database/data-source';
import { migrate } from '../database/migrate';
import { AuthChange, authChannel } from '../common/auth/auth-cache';
import { SYSTEM_ACTOR } from '../common/auth/auth-context';
import { isGrant } from '../common/auth/permissions';
import { ApiKeyEntity } from '../modules/keys/api-key.entity';
import { issueApiKey } from '../modules/keys/issue-api-key';
import { ProfileEntity } from '../modules/profiles/profile.entity';
import { PLAN_NAMES, PlanName, TRIAL_DAYS } from '../modules/plans/plans';
import { bootstrapWorkspace } from '../modules/workspaces/bootstrap-workspace';
import { UserEntity, UserRole } from '../modules/workspaces/user.entity';
import { WorkspaceEntity } from '../modules/workspaces/workspace.entity';

const plan = (v: string): PlanName => {
  if (!(PLAN_NAMES as string[]).includes(v)) throw new InvalidArgumentError(`must be one of ${PLAN_NAMES.join(', ')}`);
  return v as PlanName;
};
const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid =
  (what: string) =>
  (v: string): string => {
    if (!UUID.test(v)) throw new InvalidArgumentError(`must be a ${what} id (UUID)`);
    return v;
  };
const permissionList = (v: string): string[] => {
  const list = v
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = list.find((p) => !isGrant(p));
  if (bad || list.length === 0)
    throw new InvalidArgumentError(bad ? `unknown permission '${bad}'` : 'must name at least one permission');
  return list;
};
/** The hourly ceiling that goes with a per-minute one (never below the default 1000). */
const hourlyFor = (perMinute: number): number => Math.max(1000, perMinute * 60);
const role = (v: string): UserRole => {
  if (!['owner', 'admin', 'member'].includes(v)) throw new InvalidArgumentError('must be owner, admin or member');
  return v as UserRole;
};

async function withDb<T>(fn: (ds: DataSource) => Promise<T>): Promise<T> {
  loadDotEnv();
  const config = loadConfig();
  await migrate(config.databaseUrl);
  const ds = createDataSource(config.databaseUrl, 2);
  await ds.initialize();
  try {
    return await fn(ds);
  } finally {
    await ds.destroy();
  }
}

/** Tells running service processes that a key or workspace changed (they drop their AuthCache). */
async function announce(what: AuthChange): Promise<void> {
  const config = loadConfig();
  const redis = new IORedis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    await redis.publish(authChannel(config), what);
  } catch (err) {
    console.error(`Warning: could not notify running services (${(err as Error).message}); they see it within 5 s.`);
  } finally {
    redis.disconnect();
  }
}

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}

export function buildProgram(): Command {
  const program = new Command('admin')
    .description('Operator commands for the social publishing service')
    .showHelpAfterError();

  program
    .command('bootstrap')
    .description('Create a workspace with an owner user, a first profile and a first API key (printed once)')
    .option('--workspace <name>', 'workspace name', 'My workspace')
    .option('--email <email>', 'owner email', 'owner@example.com')
    .option('--plan <plan>', `plan (${PLAN_NAMES.join(', ')})`, plan, 'trial')
    .option('--rate-limit <perMinute>', 'requests per rolling minute for the first key', positiveInt)
    .option('--json', 'print {workspaceId, userId, profileId, apiKey}')
    .action(async (o: { workspace: string; email: string; plan: PlanName; rateLimit?: number; json?: boolean }) => {
      const r = await withDb((ds) =>
        bootstrapWorkspace(ds, {
          workspaceName: o.workspace,
          email: o.email,
          plan: o.plan,
          rateLimitPerMinute: o.rateLimit ?? null,
          rateLimitPerHour: o.rateLimit ? hourlyFor(o.rateLimit) : null,
        }),
      );
      print(
        !!o.json,
        { workspaceId: r.workspaceId, userId: r.userId, profileId: r.profileId, apiKey: r.apiKey },
        `Workspace ${r.workspaceId}\nOwner user ${r.userId}\nProfile ${r.profileId}\nAPI key (shown once): ${r.apiKey}`,
      );
    });

  program
    .command('plan')
    .description("Change a workspace's plan (trial: the trial ends in 14 days unless --trial-ends says when)")
    .requiredOption('--workspace <id>', 'workspace id', uuid('workspace'))
    .requiredOption('--plan <plan>', `new plan (${PLAN_NAMES.join(', ')})`, plan)
    .option('--trial-ends <iso>', 'trial end, ISO 8601 (trial plan only; a past date expires the trial)')
    .option('--json', 'print {workspaceId, plan, trialEndsAt}')
    .action(async (o: { workspace: string; plan: PlanName; trialEnds?: string; json?: boolean }) => {
      if (o.trialEnds !== undefined && o.plan !== 'trial')
        throw new InvalidArgumentError('--trial-ends applies to the trial plan only');
      const trialEndsAt = o.plan === 'trial' ? new Date(o.trialEnds ?? Date.now() + TRIAL_DAYS * 86400_000) : null;
      if (trialEndsAt && Number.isNaN(trialEndsAt.getTime()))
        throw new InvalidArgumentError('--trial-ends must be an ISO 8601 date-time');
      await withDb(async (ds) => {
        const r = await ds.getRepository(WorkspaceEntity).update({ id: o.workspace }, { plan: o.plan, trialEndsAt });
        if (!r.affected) throw new Error(`No workspace ${o.workspace}`);
      });
      await announce(`workspace:${o.workspace}`);
      print(
        !!o.json,
        { workspaceId: o.workspace, plan: o.plan, trialEndsAt: trialEndsAt?.toISOString() ?? null },
        `Workspace ${o.workspace} is now on ${o.plan}${trialEndsAt ? ` (trial ends ${trialEndsAt.toISOString()})` : ''}`,
      );
    });

  program
    .command('user')
    .description('Add a user to a workspace')
    .requiredOption('--workspace <id>', 'workspace id', uuid('workspace'))
    .requiredOption('--email <email>', 'email')
    .option('--role <role>', 'owner, admin or member', role, 'member')
    .option('--json', 'print {userId}')
    .action(async (o: { workspace: string; email: string; role: UserRole; json?: boolean }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(o.email)) throw new InvalidArgumentError('--email must be an email address');
      const user = await withDb(async (ds) => {
        if (!(await ds.getRepository(WorkspaceEntity).exists({ where: { id: o.workspace } })))
          throw new Error(`No workspace ${o.workspace}`);
        const email = o.email.toLowerCase();
        if (await ds.getRepository(UserEntity).exists({ where: { workspaceId: o.workspace, email } }))
          throw new Error(`${email} is already a user of workspace ${o.workspace}`);
        return ds.getRepository(UserEntity).save({ workspaceId: o.workspace, email, role: o.role, name: null });
      });
      print(!!o.json, { userId: user.id }, `User ${user.id}`);
    });

  program
    .command('key')
    .description('Create an API key for a workspace (printed once), e.g. to replace a lost first key')
    .requiredOption('--workspace <id>', 'workspace id', uuid('workspace'))
    .option('--profile <id>', 'home profile (default: the oldest profile of the workspace)', uuid('profile'))
    .option('--email <email>', 'owner: a user of the workspace (default: the workspace owner)')
    .option('--permissions <list>', 'comma-separated permissions', permissionList, ['*'])
    .option('--rate-limit <perMinute>', 'requests per rolling minute', positiveInt)
    .option('--name <name>', 'key name', 'Operator key')
    .option('--json', 'print {keyId, apiKey, profileId}')
    .action(
      async (o: {
        workspace: string;
        profile?: string;
        email?: string;
        permissions: string[];
        rateLimit?: number;
        name: string;
        json?: boolean;
      }) => {
        const r = await withDb((ds) =>
          ds.transaction(async (m) => {
            const profile = await m.findOne(ProfileEntity, {
              where: { workspaceId: o.workspace, ...(o.profile ? { id: o.profile } : {}), deletedAt: IsNull() },
              order: { createdAt: 'ASC' },
            });
            if (!profile)
              throw new Error(
                o.profile
                  ? `No profile ${o.profile} in workspace ${o.workspace}`
                  : `No workspace ${o.workspace} (or it has no profile)`,
              );
            const owner = await m.findOne(UserEntity, {
              where: o.email
                ? { workspaceId: o.workspace, email: o.email.toLowerCase() }
                : { workspaceId: o.workspace, role: 'owner' },
              order: { createdAt: 'ASC' },
            });
            if (o.email && !owner) throw new Error(`${o.email} is not a user of workspace ${o.workspace}`);
            const { entity: key, secret: apiKey } = await issueApiKey(
              m,
              {
                workspaceId: o.workspace,
                name: o.name,
                permissions: o.permissions,
                homeProfileId: profile.id,
                ownerUserId: owner?.id ?? null,
                rateLimitPerMinute: o.rateLimit ?? null,
                rateLimitPerHour: o.rateLimit ? hourlyFor(o.rateLimit) : null,
              },
              { actor: SYSTEM_ACTOR, profileId: profile.id },
            );
            return { keyId: key.id, apiKey, profileId: profile.id };
          }),
        );
        print(!!o.json, r, `API key ${r.keyId} (shown once): ${r.apiKey}`);
      },
    );

  program
    .command('rate-limit')
    .description("Set a key's request ceiling per rolling minute (the hourly ceiling becomes max(1000, 60 × it))")
    .requiredOption('--key <id>', 'API key id', uuid('API key'))
    .requiredOption('--rate-limit <perMinute>', 'requests per minute', positiveInt)
    .option('--json', 'print {keyId, rateLimitPerMinute, rateLimitPerHour}')
    .action(async (o: { key: string; rateLimit: number; json?: boolean }) => {
      await withDb(async (ds) => {
        const r = await ds
          .getRepository(ApiKeyEntity)
          .update({ id: o.key }, { rateLimitPerMinute: o.rateLimit, rateLimitPerHour: hourlyFor(o.rateLimit) });
        if (!r.affected) throw new Error(`No API key ${o.key}`);
      });
      await announce(`key:${o.key}`);
      print(
        !!o.json,
        { keyId: o.key, rateLimitPerMinute: o.rateLimit, rateLimitPerHour: hourlyFor(o.rateLimit) },
        `Key ${o.key}: ${o.rateLimit} requests per minute, ${hourlyFor(o.rateLimit)} per hour`,
      );
    });

  program
    .command('workspaces')
    .description('List workspaces')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const rows = await withDb((ds) => ds.getRepository(WorkspaceEntity).find({ order: { createdAt: 'ASC' } }));
      if (o.json) console.log(JSON.stringify(rows));
      else for (const w of rows) console.log(`${w.id}  ${w.plan.padEnd(10)}  ${w.name}`);
    });

  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
