import { RESPONSE_BODY_LIMIT } from './entities/webhook-delivery.entity';
import { WEBHOOK_EVENT_TYPES } from './event-types';

export const WEBHOOKS_TAG = 'Webhooks';

/** The Webhooks tag description of the OpenAPI document: what a receiver must implement. */
export const WEBHOOKS_TAG_DESCRIPTION = `Subscriptions receive events as HTTP POSTs of a JSON envelope \`{ id, type, createdAt, data }\`
(\`id\` is the delivery id, stable across retries: deduplicate on it; \`data.profileId\` is always set).
Requires the plan feature \`webhooks\` (403 \`plan_limit\` otherwise).

**Headers**: \`Service-Signature: t=<unix>,v1=<hex>\`, \`Service-Event\` (type), \`Service-Event-Id\` (= \`id\`),
\`Service-Delivery-Attempt\` (1, 2, …), \`Content-Type: application/json\`.

**Signature**: \`v1 = hex(HMAC-SHA256(secret, "<t>." + rawBody))\` with the subscription secret (\`whsec_…\`, the whole
string is the key), signed afresh on every attempt. Verify over the exact raw bytes (re-serialised JSON breaks it),
compare in constant time, and reject when |now − t| > 300 s. Rotating the secret invalidates the old one at once.

**Delivery**: any 2xx within 10 s is success; anything else (3xx included: redirects are not followed) is retried
after 30 s, 2 min, 10 min, 1 h, 6 h and 24 h — 7 attempts, then the delivery is \`abandoned\`. Deliveries may arrive out
of order or twice. The first ${RESPONSE_BODY_LIMIT} bytes of the response body are kept on the delivery record. Receiver URLs
must be https and must not resolve to private, loopback or link-local addresses (checked at creation and at every
connection). A paused subscription (\`isActive: false\`) drops events; queued deliveries are cancelled.`;

const envelopeSchema = {
  type: 'object',
  required: ['id', 'type', 'createdAt', 'data'],
  properties: {
    id: {
      type: 'string',
      format: 'uuid',
      description: 'Delivery id; stable across retries; use it to deduplicate.',
    },
    type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    createdAt: {
      type: 'string',
      format: 'date-time',
      description: 'When the event happened.',
    },
    data: {
      type: 'object',
      required: ['profileId'],
      additionalProperties: true,
      description:
        'Always holds profileId. Post events add postId, status (and the deprecated state copy), completedTargets, failedTargets and results (target results); connection.completed adds accounts; test events carry test: true.',
      properties: {
        profileId: { type: 'string', format: 'uuid' },
        test: { type: 'boolean' },
        postId: { type: 'string', format: 'uuid' },
        status: { type: 'string' },
        state: { type: 'string', deprecated: true },
        completedTargets: { type: 'integer' },
        failedTargets: { type: 'integer' },
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              targetId: { type: 'string' },
              platform: { type: 'string' },
              pageName: { type: 'string' },
              status: { type: 'string', enum: ['success', 'failed'] },
              result: {
                type: 'object',
                properties: { id: { type: 'string' } },
              },
              error: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const header = (name: string, description: string, example: string) => ({
  in: 'header',
  name,
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

/**
 * `x-webhooks` (the OpenAPI 3.0 convention understood by Redoc; OpenAPI 3.1 calls it `webhooks`):
 * the request the service sends to a receiver.
 */
export const WEBHOOKS_OPENAPI_EXTENSION = {
  'x-webhooks': {
    event: {
      post: {
        tags: [WEBHOOKS_TAG],
        operationId: 'Webhooks_eventDelivery',
        summary: 'Event delivery (sent by the service to your URL)',
        description: WEBHOOKS_TAG_DESCRIPTION,
        parameters: [
          header(
            'Service-Signature',
            't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>',
            't=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
          ),
          header('Service-Event', 'The event type.', 'post.published'),
          header('Service-Event-Id', 'Same as the envelope id.', '7f1c1a52-2a43-4b7e-9a0b-7a4e0f3f8d11'),
          header('Service-Delivery-Attempt', '1 on the first try, increasing on each retry.', '1'),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: envelopeSchema } },
        },
        responses: {
          '200': {
            description: 'Any 2xx acknowledges the delivery; anything else (or no answer within 10 s) is retried.',
          },
        },
      },
    },
  },
};
