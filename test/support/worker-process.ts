import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestApp } from './test-app';

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  /** SIGKILL: no shutdown hooks, jobs left active, connections dropped. */
  kill: () => Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

/**
 * Starts `node -r @swc-node/register src/main.ts` with PROCESS_ROLE=worker on the test app's
 * database and Redis prefix (the test app runs the API and the sandbox). Resolves once the
 * worker says it started.
 */
export async function startWorker(
  t: TestApp,
  env: Record<string, string> = {},
  timeoutMs = 90_000,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SWC_NODE_PROJECT: 'tsconfig.json',
      PROCESS_ROLE: 'worker',
      DATABASE_URL: t.databaseUrl,
      REDIS_PREFIX: t.redisPrefix,
      PUBLIC_BASE_URL: t.url,
      DB_MIGRATE_ON_START: 'false',
      LOG_LEVEL: process.env.TEST_WORKER_LOG_LEVEL ?? 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start within ${timeoutMs} ms:\n${out.slice(-3000)}`)),
      timeoutMs,
    );
    const check = (): void => {
      if (out.includes('Worker started')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    // 'close', not 'exit': the child's last output (why it stopped) has been read by then.
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${out.slice(-3000)}`));
    });
  });
  return {
    child,
    output: () => out,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The worker processes a describe block starts, each with `env`; `killAll` SIGKILLs every one. */
export class WorkerPool {
  readonly started: WorkerProcess[] = [];

  constructor(private readonly env: Record<string, string> = {}) {}

  async start(t: TestApp): Promise<WorkerProcess> {
    const w = await startWorker(t, this.env);
    this.started.push(w);
    return w;
  }

  async killAll(): Promise<void> {
    for (const w of this.started) await w.kill();
  }
}
