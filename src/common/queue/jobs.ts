import type { AppConfig } from '@/config/config';

/**
 * The typed job registry: every job's name, queue and payload. Payloads carry ids only; the
 * processor reloads state, so a job run twice (stalled-job recovery) reads the truth again.
 */
export const QUEUES = ['events', 'publish', 'webhooks', 'maintenance'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface JobPayloads {
  /** Outbox relay → fan-out of committed events (a relay batch) to webhook subscriptions; `eventId`: one event, as queued before batches. */
  'dispatch-event': { eventIds: string[] } | { eventId: string };
  /** Publish (or resume publishing) one post. */
  'publish-post': { postId: string };
  /** Check again on the targets of a post waiting on the network's processing (delayed, back-off). */
  'check-publish': { postId: string };
  /** Move a scheduled post to queued when its time comes; `version` detects a superseded schedule. */
  'schedule-post': { postId: string; version: number };
  /** One webhook delivery attempt. */
  /** workspaceId: the delivery's (its fair share of deliveries in flight); absent in jobs queued before it was added. */
  /** attemptsBefore: attempts made before this job (the fan-out's own first attempt), for the retry schedule. */
  'deliver-webhook': { deliveryId: string; workspaceId?: string; attemptsBefore?: number };
  /** Periodic: relay committed outbox rows to the events queue. */
  'relay-outbox': Record<string, never>;
  /** Periodic: re-enqueue relayed events whose dispatch job was lost before they were handled. */
  'redrive-outbox': Record<string, never>;
  /** Periodic: re-enqueue due scheduled/queued posts whose job was lost. */
  'sweep-posts': Record<string, never>;
  /** Periodic: re-enqueue posts left in processing by a worker that died. */
  'resume-stuck-posts': Record<string, never>;
  /** Periodic: re-enqueue webhook deliveries whose job was lost (pending/failed, overdue). */
  'sweep-webhook-deliveries': Record<string, never>;
  /** Periodic: refresh network tokens before they expire. */
  'refresh-tokens': Record<string, never>;
  /** Periodic: expire connect sessions older than an hour. */
  'expire-connect-sessions': Record<string, never>;
  /** Periodic: daily analytics snapshots. */
  'snapshot-analytics': Record<string, never>;
  /** An account just connected: its history (90 days where the network has them) and today's numbers. */
  'backfill-analytics': { accountId: string };
  /** Periodic: store new comments of accounts with comment sync (comment.received events). */
  'sync-comments': Record<string, never>;
  /** Periodic: delete idempotency keys past 24 hours. */
  'purge-idempotency-keys': Record<string, never>;
}

export type JobName = keyof JobPayloads;

export const JOB_QUEUE: Record<JobName, QueueName> = {
  'dispatch-event': 'events',
  'publish-post': 'publish',
  'check-publish': 'publish',
  'schedule-post': 'publish',
  'deliver-webhook': 'webhooks',
  'relay-outbox': 'maintenance',
  'redrive-outbox': 'maintenance',
  'sweep-posts': 'maintenance',
  'resume-stuck-posts': 'maintenance',
  'sweep-webhook-deliveries': 'maintenance',
  'refresh-tokens': 'maintenance',
  'expire-connect-sessions': 'maintenance',
  'snapshot-analytics': 'maintenance',
  'backfill-analytics': 'maintenance',
  'sync-comments': 'maintenance',
  'purge-idempotency-keys': 'maintenance',
};

/** Every job name (the handler check walks this list). */
export const JOB_NAMES = Object.keys(JOB_QUEUE) as JobName[];

/**
 * The periodic jobs and their intervals, in one place. The worker role creates one BullMQ job
 * scheduler per entry (one run cluster-wide per interval) once the job has a handler.
 */
export const PERIODIC_JOBS: Partial<Record<JobName, (config: AppConfig) => number>> = {
  'relay-outbox': (c) => c.outboxPollMs,
  'redrive-outbox': (c) => c.schedulerSweepMs,
  'sweep-posts': (c) => c.schedulerSweepMs,
  'resume-stuck-posts': (c) => c.schedulerSweepMs,
  'sweep-webhook-deliveries': (c) => c.schedulerSweepMs,
  'refresh-tokens': () => 10 * 60_000,
  'expire-connect-sessions': () => 60_000,
  'snapshot-analytics': () => 3600_000,
  'sync-comments': () => 5 * 60_000,
  'purge-idempotency-keys': () => 3600_000,
};
