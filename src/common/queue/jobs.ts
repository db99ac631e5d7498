/**
 * The typed job registry: every job's name, queue and payload. Payloads carry ids only; the
 * processor reloads state, so a job run twice (stalled-job recovery) reads the truth again.
 */
export const QUEUES = ['events', 'publish', 'webhooks', 'maintenance'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface JobPayloads {
  /** Outbox relay → fan-out of one committed event to webhook subscriptions. */
  'dispatch-event': { eventId: string };
  /** Publish (or resume publishing) one post. */
  'publish-post': { postId: string };
  /** Check again on the targets of a post waiting on the network's processing (delayed, back-off). */
  'check-publish': { postId: string };
  /** Move a scheduled post to queued when its time comes; `version` detects a superseded schedule. */
  'schedule-post': { postId: string; version: number };
  /** One webhook delivery attempt. */
  'deliver-webhook': { deliveryId: string };
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
  'sync-comments': 'maintenance',
  'purge-idempotency-keys': 'maintenance',
};
