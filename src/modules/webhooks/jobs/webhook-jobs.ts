import type { JobsOptions } from 'bullmq';

/** Attempts of an automatic delivery: the first + one per configured retry delay (6) = 7. */
export const DELIVERY_ATTEMPTS = 7;

/** The custom BullMQ backoff type whose delays come from config.webhooks.retryDelaysMs. */
export const WEBHOOK_BACKOFF = 'webhook';

/** The automatic delivery job: job id = delivery id, so a fan-out run twice queues it once. */
export function deliveryJobOptions(deliveryId: string): JobsOptions {
  return {
    jobId: deliveryId,
    attempts: DELIVERY_ATTEMPTS,
    backoff: { type: WEBHOOK_BACKOFF },
  };
}

/** A one-shot delivery (test event, manual redelivery): one attempt, no automatic retries. */
export function oneShotJobOptions(jobId: string): JobsOptions {
  return { jobId, attempts: 1 };
}
