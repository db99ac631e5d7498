import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '@/config/config';
import { OutboxRelayService } from './outbox-relay.service';

/** The channel the events table's trigger notifies on commit (migration OutboxNotify). */
export const OUTBOX_CHANNEL = 'outbox_events';
/** How long to wait before listening again after the connection dropped (Postgres restart). */
const RECONNECT_MS = 1000;
const BATCH = 200;
/**
 * While commits keep coming, a wake-up waits this long for others to relay with it: a relay is a
 * transaction and a queue write, so under a stream of single-event requests this makes it one per
 * window instead of one per event (the bench's round trips per creation), for at most this much
 * latency. The first commit after QUIET_MS without any relays at once.
 */
const COALESCE_MS = 250;
const QUIET_MS = 1000;

/**
 * The relay's wake-up (worker role): LISTEN on the outbox channel, and relay as soon as an event
 * commits, instead of at the next poll. The poll (`relay-outbox`, OUTBOX_POLL_MS) stays as the
 * fallback for a notification missed while the connection was down; rows are claimed with SKIP
 * LOCKED, so every worker may wake for the same commit and each event is still relayed once.
 * Wake-ups in a stream are folded into one relay per COALESCE_MS (or one more after the run in progress).
 */
@Injectable()
export class OutboxListenerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private client: Client | null = null;
  private running: Promise<void> | null = null;
  private scheduled: NodeJS.Timeout | null = null;
  private lastWake = 0;
  private again = false;
  private stopped = false;
  private reconnect: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly relay: OutboxRelayService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runsWorker) await this.listen();
  }

  /** Before TypeORM closes: a relay in progress finishes first. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    if (this.scheduled) clearTimeout(this.scheduled);
    await this.client?.end().catch(() => undefined);
    await this.running;
  }

  /** Relays now after a quiet spell, else in COALESCE_MS (or once more after the run in progress). */
  wake(): void {
    if (this.stopped) return;
    const quiet = Date.now() - this.lastWake >= QUIET_MS;
    this.lastWake = Date.now();
    if (this.scheduled) return;
    if (quiet) return this.run();
    this.scheduled = setTimeout(() => {
      this.scheduled = null;
      this.run();
    }, COALESCE_MS);
  }

  private run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.run();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      // A full batch may leave more behind it.
      while (!this.stopped && (await this.relay.relayBatch(BATCH)) >= BATCH);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Outbox relay on notification failed (the poll retries)');
    }
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.logger.warn({ err: err.message }, 'Outbox listener connection lost');
      this.retry(client);
    });
    client.on('end', () => this.retry(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.client = client;
      // Whatever committed while nobody listened.
      this.wake();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Could not listen for outbox events (polling only)');
      this.retry(client);
    }
  }

  private retry(client: Client): void {
    if (this.stopped || this.reconnect || (this.client !== null && this.client !== client)) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      if (!this.stopped) void this.listen();
    }, RECONNECT_MS);
    this.reconnect.unref();
  }
}
