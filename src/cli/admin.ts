/**
 * Operator CLI (what a dashboard would do), working on the database directly:
 *   npm run admin -- bootstrap [--workspace NAME] [--email EMAIL] [--plan PLAN] [--rate-limit N] [--json]
 *   npm run admin -- plan --workspace ID --plan PLAN [--trial-ends ISO]
 *   npm run admin -- user --workspace ID --email EMAIL [--role owner|admin|member] [--json]
 *   npm run admin -- rate-limit --key ID --rate-limit N
 *   npm run admin -- workspaces [--json]
 */
import 'reflect-metadata';
import { Command, InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/config';
import { createDataSource } from '../database/data-source';
import { migrate } from '../database/migrate';
import { ApiKeyEntity } from '../modules/keys/api-key.entity';
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
const role = (v: string): UserRole => {
  if (!['owner', 'admin', 'member'].includes(v)) throw new InvalidArgumentError('must be owner, admin or member');
  return v as UserRole;
};

async function withDb<T>(fn: (ds: DataSource) => Promise<T>): Promise<T> {
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

function print(json: boolean, value: Record<string, unknown>, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}

export function buildProgram(): Command {
  const program = new Command('admin').description('Operator commands for the social publishing service').showHelpAfterError();

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
        bootstrapWorkspace(ds, { workspaceName: o.workspace, email: o.email, plan: o.plan, rateLimitPerMinute: o.rateLimit ?? null, rateLimitPerHour: o.rateLimit ? Math.max(1000, o.rateLimit * 60) : null }),
      );
      print(!!o.json, { workspaceId: r.workspaceId, userId: r.userId, profileId: r.profileId, apiKey: r.apiKey }, `Workspace ${r.workspaceId}\nOwner user ${r.userId}\nProfile ${r.profileId}\nAPI key (shown once): ${r.apiKey}`);
    });

  program
    .command('plan')
    .description("Change a workspace's plan")
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--plan <plan>', 'new plan', plan)
    .option('--trial-ends <iso>', 'trial end (trial plan only)')
    .action(async (o: { workspace: string; plan: PlanName; trialEnds?: string }) => {
      await withDb(async (ds) => {
        const trialEndsAt = o.plan === 'trial' ? new Date(o.trialEnds ?? Date.now() + TRIAL_DAYS * 86400_000) : null;
        if (trialEndsAt && Number.isNaN(trialEndsAt.getTime())) throw new InvalidArgumentError('--trial-ends must be ISO 8601');
        const r = await ds.getRepository(WorkspaceEntity).update({ id: o.workspace }, { plan: o.plan, trialEndsAt });
        if (!r.affected) throw new Error(`No workspace ${o.workspace}`);
      });
      console.log(`Workspace ${o.workspace} is now on ${o.plan}`);
    });

  program
    .command('user')
    .description('Add a user to a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--email <email>', 'email')
    .option('--role <role>', 'owner, admin or member', role, 'member')
    .option('--json', 'print JSON')
    .action(async (o: { workspace: string; email: string; role: UserRole; json?: boolean }) => {
      const user = await withDb((ds) => ds.getRepository(UserEntity).save({ workspaceId: o.workspace, email: o.email.toLowerCase(), role: o.role, name: null }));
      print(!!o.json, { userId: user.id }, `User ${user.id}`);
    });

  program
    .command('rate-limit')
    .description("Set a key's request ceiling (per rolling minute; the hourly ceiling follows)")
    .requiredOption('--key <id>', 'API key id')
    .requiredOption('--rate-limit <perMinute>', 'requests per minute', positiveInt)
    .action(async (o: { key: string; rateLimit: number }) => {
      await withDb(async (ds) => {
        const r = await ds.getRepository(ApiKeyEntity).update({ id: o.key }, { rateLimitPerMinute: o.rateLimit, rateLimitPerHour: Math.max(1000, o.rateLimit * 60) });
        if (!r.affected) throw new Error(`No API key ${o.key}`);
      });
      console.log(`Key ${o.key}: ${o.rateLimit} requests per minute`);
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
