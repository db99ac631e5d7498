import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (one registry per process: api and worker roles each expose
 * their own). Call sites record through the small functions below, so the publish pipeline and
 * webhook delivery stay free of metrics plumbing.
 */
export const registry = new Registry();
registry.setDefaultLabels({ service: 'social-publishing' });
collectDefaultMetrics({ register: registry });

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'sps_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'sps_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const publishOutcomes = new Counter({
  name: 'sps_publish_outcomes_total',
  help: 'Post targets settled by the publishing worker, by network, outcome (success, failed) and errorCategory.',
  labelNames: ['network', 'outcome', 'error_category'] as const,
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'sps_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by result (success, failure) and the receiver status class (2xx…5xx, none).',
  labelNames: ['result', 'status_class'] as const,
  registers: [registry],
});

export const webhookDuration = new Histogram({
  name: 'sps_webhook_delivery_duration_seconds',
  help: 'Time of one webhook delivery attempt, by result.',
  labelNames: ['result'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const queueJobs = new Gauge({
  name: 'sps_queue_jobs',
  help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, failed, prioritized), read at scrape time.',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const queueOldestWaiting = new Gauge({
  name: 'sps_queue_oldest_waiting_seconds',
  help: 'Age of the oldest job waiting in each queue (0 when none waits), read at scrape time.',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const outboxPending = new Gauge({
  name: 'sps_outbox_pending_events',
  help: 'Events written but not yet relayed to the queue, read at scrape time.',
  registers: [registry],
});

export const outboxLag = new Gauge({
  name: 'sps_outbox_lag_seconds',
  help: 'Age of the oldest event not yet relayed (0 when none), read at scrape time.',
  registers: [registry],
});

export function recordPublishOutcome(network: string, outcome: string, errorCategory: string | null | undefined): void {
  publishOutcomes.inc({ network, outcome, error_category: errorCategory ?? 'none' });
}

export function recordWebhookDelivery(status: number | null, ok: boolean, seconds: number): void {
  const result = ok ? 'success' : 'failure';
  webhookDeliveries.inc({ result, status_class: status === null ? 'none' : `${Math.floor(status / 100)}xx` });
  webhookDuration.observe({ result }, seconds);
}
