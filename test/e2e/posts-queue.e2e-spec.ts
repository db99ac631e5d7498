import { createPost } from '@test/support/post-fixtures';
import { clearOfUtcTime, createTenant, createTestApp, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';
import { insertAccount } from '@test/support/publishing';

/** Posting queues: GET/PUT /v1/queue, GET /v1/queue/next-slots, POST /v1/posts with addToQueue. */
describe('posting queues', () => {
  // The slots below are at 00:00 (09:00 in Tokyo), 10:00 and 11:00 UTC, and the daily cap counts the
  // UTC day: no test straddles one of those times (the next free slot would move under it).
  beforeEach(async () => {
    for (const time of ['00:00', '10:00', '11:00']) await clearOfUtcTime(time);
  });
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const everyDay = (time: string) => ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, time }));

  /** A tenant with a Facebook account and a queue at `time` (UTC) every day. */
  const dailyQueue = async (time: string) => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'UTC', slots: everyDay(time) })
      .expect(200);
    return { tenant, fb };
  };

  it('should answer an empty queue, store a valid one and refuse an unknown zone or a bad slot', async () => {
    const tenant = await createTenant(t);
    const empty = await t.http().get('/v1/queue').set(tenant.auth);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ timezone: 'UTC', slots: [] });

    const body = {
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'mon', time: '09:00' },
        { day: 'fri', time: '17:30' },
      ],
    };
    const put = await t.http().put('/v1/queue').set(tenant.auth).send(body);
    expect(put.status).toBe(200);
    expect(put.body).toEqual(body);
    expect((await t.http().get('/v1/queue').set(tenant.auth)).body).toEqual(body);

    const zone = await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ ...body, timezone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'timezone' } });
    const time = await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'UTC', slots: [{ day: 'mon', time: '25:00' }] });
    expect(time.status).toBe(400);
    expect(time.body.error.code).toBe('invalid_request');
    expect(time.body.error.details.field).toMatch(/^slots\.0\.time$/);
    const day = await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'UTC', slots: [{ day: 'someday', time: '10:00' }] });
    expect(day.status).toBe(400);
    expect((await t.http().get('/v1/queue').set(tenant.auth)).body).toEqual(body);
  });

  it('should list the next free slots in UTC, following the zone', async () => {
    const tenant = await createTenant(t);
    await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'Asia/Tokyo', slots: everyDay('09:00') })
      .expect(200);
    const res = await t.http().get('/v1/queue/next-slots?count=3').set(tenant.auth);
    expect(res.status).toBe(200);
    expect(res.body.slots).toHaveLength(3);
    for (const s of res.body.slots as string[]) {
      expect(s).toMatch(/T00:00:00\.000Z$/); // 09:00 in Tokyo (UTC+9, no daylight saving)
      expect(Date.parse(s)).toBeGreaterThan(Date.now());
    }
    expect((await t.http().get('/v1/queue/next-slots').set(tenant.auth)).body.slots).toHaveLength(5);
    const tooMany = await t.http().get('/v1/queue/next-slots?count=51').set(tenant.auth);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'count' } });
  });

  it('should schedule addToQueue posts at distinct free slots, even when created concurrently', async () => {
    const { tenant, fb } = await dailyQueue('10:00');
    const expected = (await t.http().get('/v1/queue/next-slots?count=6').set(tenant.auth)).body.slots as string[];

    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createPost(t, tenant.auth, { content: `queued ${i}`, accountIds: [fb.id], addToQueue: true }),
      ),
    );
    for (const r of results) {
      expect(r.status).toBe(201);
      expect(r.body.state).toBe('scheduled');
    }
    const times = results.map((r) => r.body.post.scheduledAt as string).sort();
    expect(times).toEqual(expected);
    const next = (await t.http().get('/v1/queue/next-slots?count=1').set(tenant.auth)).body.slots as string[];
    expect(Date.parse(next[0])).toBeGreaterThan(Date.parse(expected[5]));
  });

  it("should hold a key's daily cap exactly for concurrent addToQueue posts, leaving no slot taken by a refused one", async () => {
    const { tenant, fb } = await dailyQueue('11:00');
    const key = await createKey(t, tenant, { maxPostsPerDay: 3 }, { owner: tenant.userId });
    const expected = (await t.http().get('/v1/queue/next-slots?count=4').set(tenant.auth)).body.slots as string[];

    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createPost(t, key.auth, { content: `capped queued ${i}`, accountIds: [fb.id], addToQueue: true }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('daily_post_limit');
    }
    expect(created.map((r) => r.body.post.scheduledAt as string).sort()).toEqual(expected.slice(0, 3));
    // The refused creations rolled back their slot claims: the fourth slot is still the next free one.
    const next = (await t.http().get('/v1/queue/next-slots?count=1').set(tenant.auth)).body.slots as string[];
    expect(next).toEqual([expected[3]]);
  });

  it('should refuse addToQueue without slots or combined with scheduledAt/publishNow', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const none = await createPost(t, tenant.auth, { content: 'no queue', accountIds: [fb.id], addToQueue: true });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'addToQueue' } });
    const both = await createPost(t, tenant.auth, {
      content: 'both',
      accountIds: [fb.id],
      addToQueue: true,
      publishNow: true,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.details.field).toBe('addToQueue');
    const count = await t.ds.query<{ n: number }[]>('SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1', [
      tenant.workspaceId,
    ]);
    expect(count[0].n).toBe(0);
  });
  it('should free the slot of a cancelled or published-now queued post for the next addToQueue post', async () => {
    const { tenant, fb } = await dailyQueue('10:00');
    const queued = (content: string) => createPost(t, tenant.auth, { content, accountIds: [fb.id], addToQueue: true });
    const first = await queued('first');
    const second = await queued('second');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    const firstSlot = first.body.post.scheduledAt as string;
    const secondSlot = second.body.post.scheduledAt as string;

    expect((await t.http().delete(`/v1/posts/${first.body.id}`).set(tenant.auth)).status).toBe(200);
    expect((await t.http().get('/v1/queue/next-slots?count=1').set(tenant.auth)).body.slots).toEqual([firstSlot]);
    const third = await queued('third');
    expect(third.body.post.scheduledAt).toBe(firstSlot);

    // Publishing now takes the post out of its slot too.
    expect((await t.http().post(`/v1/posts/${second.body.id}/publish`).set(tenant.auth)).status).toBe(200);
    const fourth = await queued('fourth');
    expect(fourth.body.post.scheduledAt).toBe(secondSlot);
  });
});
