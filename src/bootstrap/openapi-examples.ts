/**
 * A realistic example for every request body, keyed `METHOD /path` (what Swagger UI's "Try it out"
 * starts from, and what test/e2e/openapi-examples.e2e-spec.ts sends as is with a fresh key: no
 * example may answer 400 invalid_request or a 5xx). Posts use the newer shape; no example carries
 * `profileId` (the key's home profile is the default; another id would answer 403).
 */
const ACCOUNT_ID = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

export const REQUEST_EXAMPLES: Record<string, unknown> = {
  'POST /v1/profiles': {
    name: 'Acme Coffee — Berlin',
    description: 'Social accounts of the Berlin shop',
    externalId: 'customer-1042',
  },
  'PATCH /v1/profiles/{id}': { name: 'Acme Coffee — Berlin Mitte', description: 'Moved to Mitte in 2026' },
  'POST /v1/api-keys': { name: 'CI publisher', permissions: ['posts:read', 'posts:write'], rateLimitPerMinute: 16 },
  'PUT /v1/policy': {
    allowedPlatforms: ['facebook', 'instagram', 'linkedin'],
    requireApproval: false,
    blockedTerms: ['giveaway'],
    maxScheduleDaysAhead: 90,
  },
  'PATCH /v1/accounts/{id}': { commentSync: true },
  'POST /v1/connect/sessions': { platform: 'linkedin', redirectUrl: 'https://app.example.com/settings/social' },
  'POST /v1/posts': {
    content: 'Our spring blend is back: bright, floral and roasted this week in Berlin.',
    accountIds: [ACCOUNT_ID],
    publishNow: true,
  },
  'POST /v1/posts/validate': {
    content: 'Our spring blend is back: bright, floral and roasted this week in Berlin.',
    accountIds: [ACCOUNT_ID],
    scheduledAt: '2030-05-04T09:30:00Z',
  },
  // A dry run: every post checked, nothing created (drop dryRun to create them all or none).
  'POST /v1/posts/bulk': {
    posts: [
      {
        content: 'Monday brew tip: bloom the grounds for 30 seconds.',
        accountIds: [ACCOUNT_ID],
        scheduledAt: '2030-05-06T08:00:00Z',
      },
      { content: 'Our spring blend is back in all shops today.', accountIds: [ACCOUNT_ID], publishNow: true },
    ],
    dryRun: true,
  },
  'PUT /v1/posts/{id}': {
    content: 'Our spring blend is back — now also in 1 kg bags.',
    scheduledAt: '2030-05-04T10:00:00Z',
  },
  'PUT /v1/queue': {
    timezone: 'Europe/Berlin',
    slots: [
      { day: 'mon', time: '09:00' },
      { day: 'wed', time: '17:30' },
      { day: 'fri', time: '12:00' },
    ],
  },
  'POST /v1/posts/{id}/reject': { reason: 'Please mention the opening hours.' },
  'POST /v1/webhooks': { url: 'https://hooks.example.com/social', events: ['post.published', 'post.failed'] },
  'PATCH /v1/webhooks/{id}': { events: ['post.published', 'post.failed', 'post.partially_published'], isActive: true },
  'POST /v1/webhooks/{id}/test': { eventType: 'post.published' },
  'POST /v1/media/upload': { fileType: 'image/jpeg', fileName: 'spring-blend.jpg' },
  'POST /v1/upload/signed-url': { fileType: 'image/jpeg', fileName: 'spring-blend.jpg' },
  'POST /v1/media/upload-sessions': { maxFiles: 5, redirectUrl: 'https://app.example.com/uploads/done' },
};
