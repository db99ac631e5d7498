import { ApiError, isApiError } from '@/common/errors/api-error';
import { createValidationPipe } from '@/common/errors/validation';
import { PLATFORM_NAMES } from '@/modules/networks/platform-name';
import { CreatePostDto } from './dto/create-post.dto';
import {
  checkContentPatch,
  CreateBody,
  detectShape,
  mergeContent,
  normaliseCreate,
  splitMediaUrls,
  toPublishContent,
} from './post-shape';
import { parseIsoDateTime, parseScheduledAt } from './scheduled-at';

const A = '11111111-1111-4111-8111-111111111111';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (isApiError(err)) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('normaliseCreate', () => {
  it('should read the older shape as a draft by default', () => {
    const n = normaliseCreate({ content: { message: 'Hello' }, targetIds: [A] });
    expect(n).toMatchObject({
      shape: 'older',
      intent: 'draft',
      accountIds: [A],
      accountField: 'targetIds',
      content: { contentType: 'text', message: 'Hello' },
    });
  });

  it('should schedule an older-shape post with saveAsDraft false and scheduledAt', () => {
    const n = normaliseCreate({
      content: { message: 'Hi' },
      targetIds: [A],
      saveAsDraft: false,
      scheduledAt: '2030-01-01T00:00:00Z',
    });
    expect(n.intent).toBe('schedule');
    expect(n.scheduledAt).toBe('2030-01-01T00:00:00Z');
  });

  it('should publish an older-shape post with saveAsDraft false and no scheduledAt', () => {
    expect(normaliseCreate({ content: { message: 'Hi' }, saveAsDraft: false }).intent).toBe('publish');
  });

  it('should keep the older shape without targetIds for every active account', () => {
    expect(normaliseCreate({ content: { message: 'Hi' } }).accountIds).toBeNull();
  });

  it('should read the legacy flat body', () => {
    const n = normaliseCreate({
      message: 'Flat',
      imageUrls: ['https://cdn.example.com/a.png'],
      targetIds: [A],
      saveAsDraft: false,
    } as CreateBody);
    expect(n.shape).toBe('legacy');
    expect(n.intent).toBe('publish');
    expect(n.content).toEqual({ contentType: 'image', message: 'Flat', imageUrls: ['https://cdn.example.com/a.png'] });
    expect(n.paths.content).toBe('');
  });

  it('should read the newer shape with a string content', () => {
    const n = normaliseCreate({ content: 'Plain text', accountIds: [A], publishNow: true });
    expect(n).toMatchObject({
      shape: 'newer',
      intent: 'publish',
      accountIds: [A],
      accountField: 'accountIds',
      content: { contentType: 'text', message: 'Plain text' },
    });
    expect(n.paths.text).toBe('content');
  });

  it('should store a top-level firstComment in the content and name it as sent', () => {
    const n = normaliseCreate({ content: 'Text', firstComment: 'Link in bio', accountIds: [A] });
    expect(n.content.firstComment).toBe('Link in bio');
    expect(n.paths.firstComment).toBe('firstComment');
    expect(normaliseCreate({ content: { message: 'x', firstComment: 'c' }, targetIds: [A] }).content.firstComment).toBe(
      'c',
    );
    expect(() =>
      normaliseCreate({ content: { message: 'x', firstComment: 'c' }, firstComment: 'd', accountIds: [A] }),
    ).toThrow('firstComment is given twice');
  });

  it('should make a newer-shape post without publishNow or scheduledAt a draft', () => {
    expect(normaliseCreate({ content: 'x', accountIds: [A] }).intent).toBe('draft');
    expect(normaliseCreate({ content: 'x', accountIds: [A], publishNow: false }).intent).toBe('draft');
    expect(normaliseCreate({ content: 'x', accountIds: [A], scheduledAt: '2030-01-01T00:00:00Z' }).intent).toBe(
      'schedule',
    );
  });

  it('should refuse publishNow together with scheduledAt', () => {
    const err = errorOf(() =>
      normaliseCreate({ content: 'x', accountIds: [A], publishNow: true, scheduledAt: '2030-01-01T00:00:00Z' }),
    );
    expect(err.code).toBe('invalid_request');
    expect(err.details).toEqual({ field: 'publishNow' });
  });

  it('should require accountIds in the newer shape', () => {
    const err = errorOf(() => normaliseCreate({ content: 'x', publishNow: true }));
    expect(err.details).toEqual({ field: 'accountIds' });
  });

  it('should refuse mixing the older and newer shapes', () => {
    const err = errorOf(() => normaliseCreate({ content: 'x', accountIds: [A], targetIds: [A] }));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('targetIds');
  });

  it('should move platforms and mediaUrls into the stored content', () => {
    const n = normaliseCreate({
      content: { caption: 'Watch' },
      accountIds: [A],
      mediaUrls: ['https://cdn.example.com/clip.mp4', 'https://cdn.example.com/cover.jpg'],
      platforms: { youtube: { title: 'Clip' } },
    });
    expect(n.content).toEqual({
      contentType: 'video',
      caption: 'Watch',
      videoUrl: 'https://cdn.example.com/clip.mp4',
      imageUrls: ['https://cdn.example.com/cover.jpg'],
      platforms: { youtube: { title: 'Clip' } },
    });
    expect(n.paths).toMatchObject({ media: 'mediaUrls', options: 'platforms.' });
  });

  it('should keep per-platform objects of a content object as platform options', () => {
    const n = normaliseCreate({
      content: { message: 'x', youtube: { title: 'T' }, platformCaptions: { linkedin: 'Pro' } },
    });
    expect(n.content.platforms).toEqual({ youtube: { title: 'T' } });
    expect(n.content.platformCaptions).toEqual({ linkedin: 'Pro' });
  });

  // Adding a network (docs/architecture.md): its options field in the request DTOs, or 400s.
  it.each(PLATFORM_NAMES)("should take every network's options in each shape (%s)", async (network) => {
    const options = { someOption: 'on' };
    const pipe = createValidationPipe();
    const accept = (body: Record<string, unknown>) =>
      pipe.transform(body, { type: 'body', metatype: CreatePostDto }) as Promise<CreateBody>;
    const bodies = [
      { content: { message: 'x', [network]: options }, targetIds: [A] },
      { message: 'x', [network]: options, targetIds: [A] },
      { content: { message: 'x', [network]: options }, accountIds: [A] },
    ];
    for (const body of bodies)
      expect(normaliseCreate(await accept(body)).content.platforms).toEqual({ [network]: options });
    expect(checkContentPatch({ [network]: options })).toEqual({ [network]: options });
  });

  it('should infer contentType from the media', () => {
    expect(normaliseCreate({ content: { videoUrl: 'https://x.test/v.mp4' } }).content.contentType).toBe('video');
    expect(normaliseCreate({ content: { imageUrls: ['https://x.test/a.png'] } }).content.contentType).toBe('image');
    expect(normaliseCreate({ content: { message: 'x' } }).content.contentType).toBe('text');
    expect(
      normaliseCreate({ content: { contentType: 'text', message: 'x', imageUrls: ['https://x.test/a.png'] } }).content
        .contentType,
    ).toBe('text');
  });

  it.each([
    [{ content: { message: 'x', imageUrls: 'nope' } }, 'content.imageUrls'],
    [{ content: { message: 'x', contentType: 'gif' } }, 'content.contentType'],
    [{ content: { message: 'x', bogus: 1 } }, 'content.bogus'],
    [{ content: { message: 'x', platformCaptions: { myspace: 'x' } } }, 'content.platformCaptions.myspace'],
    [{ content: { contentType: 'video', message: 'x' } }, 'content.videoUrl'],
    [{ content: {} }, 'content.message'],
    [{ content: 42 }, 'content'],
    [{}, 'content'],
    [{ message: 'x', imageUrls: [1] }, 'imageUrls'],
    [{ content: 'x', accountIds: [A], platforms: { myspace: {} } }, 'platforms.myspace'],
    [{ content: { message: 'x' }, message: 'y' }, 'message'],
  ])('should name the field of an invalid body %#', (body, field) => {
    const err = errorOf(() => normaliseCreate(body as CreateBody));
    expect(err.code).toBe('invalid_request');
    expect((err.details as { field: string }).field).toBe(field);
    expect(err.message).toContain(field);
  });

  it('should detect the shape from its markers', () => {
    expect(detectShape({ content: { message: 'x' }, scheduledAt: 'x' })).toBe('older');
    expect(detectShape({ content: { message: 'x' }, accountIds: [A] })).toBe('newer');
    expect(detectShape({ publishNow: true })).toBe('newer');
    expect(detectShape({})).toBe('legacy');
  });
});

describe('splitMediaUrls', () => {
  it('should take videos by extension and the rest as images', () => {
    expect(splitMediaUrls(['https://a.test/1.MOV?sig=1', 'https://a.test/2.webp'], undefined)).toEqual({
      videoUrl: 'https://a.test/1.MOV?sig=1',
      imageUrls: ['https://a.test/2.webp'],
    });
  });

  it('should follow contentType video for an extension-less URL', () => {
    expect(splitMediaUrls(['https://a.test/media/abc'], 'video')).toEqual({
      videoUrl: 'https://a.test/media/abc',
      imageUrls: [],
    });
  });

  it('should refuse two videos', () => {
    expect(errorOf(() => splitMediaUrls(['https://a.test/1.mp4', 'https://a.test/2.mp4'], undefined)).details).toEqual({
      field: 'mediaUrls',
    });
  });
});

describe('mergeContent', () => {
  it('should change only the given fields and clear null ones', () => {
    const merged = mergeContent(
      { contentType: 'text', message: 'old', link: 'https://x.test', platforms: { youtube: { title: 'T' } } },
      checkContentPatch({ message: 'new', link: null, youtube: null }),
    );
    expect(merged).toEqual({ contentType: 'text', message: 'new' });
  });

  it('should re-infer contentType when the media change', () => {
    expect(
      mergeContent({ contentType: 'text', message: 'x' }, checkContentPatch({ videoUrl: 'https://x.test/v.mp4' }))
        .contentType,
    ).toBe('video');
  });

  it('should take a plain string as the new message', () => {
    expect(mergeContent({ contentType: 'text', message: 'x' }, checkContentPatch('y')).message).toBe('y');
  });
});

describe('toPublishContent', () => {
  it('should show platform options at the top level', () => {
    expect(
      toPublishContent({
        contentType: 'video',
        videoUrl: 'https://x.test/v.mp4',
        platforms: { youtube: { title: 'T' } },
      }),
    ).toEqual({
      contentType: 'video',
      message: null,
      caption: null,
      link: null,
      imageUrls: [],
      videoUrl: 'https://x.test/v.mp4',
      platformCaptions: {},
      perAccount: {},
      firstComment: null,
      youtube: { title: 'T' },
    });
  });
});

describe('parseScheduledAt', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('should accept any offset and answer in UTC', () => {
    expect(parseScheduledAt('2030-01-01T10:00:00+05:30', now, null).toISOString()).toBe('2030-01-01T04:30:00.000Z');
    expect(parseScheduledAt('2030-01-01T01:00:00.250Z', now, null).toISOString()).toBe('2030-01-01T01:00:00.250Z');
    expect(parseScheduledAt('2030-01-01T01:00:00', now, null).toISOString()).toBe('2030-01-01T01:00:00.000Z');
  });

  it.each(['tomorrow', '2030-02-30T00:00:00Z', '2030-01-01', '2030-13-01T00:00:00Z', 12345, '2030-01-01T25:00:00Z'])(
    'should refuse %p as not ISO 8601',
    (raw) => {
      expect(errorOf(() => parseScheduledAt(raw, now, null)).code).toBe('invalid_scheduled_at');
    },
  );

  it('should refuse a time in the past', () => {
    expect(errorOf(() => parseScheduledAt('2029-12-31T23:59:59Z', now, null)).message).toContain('past');
  });

  it("should refuse a time beyond the policy's maxScheduleDaysAhead", () => {
    expect(parseScheduledAt('2030-01-07T00:00:00Z', now, 7)).toBeInstanceOf(Date);
    expect(errorOf(() => parseScheduledAt('2030-01-09T00:00:00Z', now, 7)).message).toContain('7 days');
  });

  it('should parse strict ISO date-times only', () => {
    expect(parseIsoDateTime('2028-02-29T00:00:00Z')).not.toBeNull();
    expect(parseIsoDateTime('2030-02-29T00:00:00Z')).toBeNull();
  });
});
