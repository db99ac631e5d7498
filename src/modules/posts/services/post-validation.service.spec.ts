import { loadConfig } from '@/config/config';
import type { PlatformAdapter, PublishContent, ValidationIssue } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { normaliseCreate, STORED_PATHS } from '../post-shape';
import { requestField } from '../validation-fields';
import { findBlockedTerm, PostValidationService } from './post-validation.service';

/** A registry whose adapters apply a given rule function (the real adapters live elsewhere). */
class FakeRegistry extends PlatformRegistry {
  constructor(private readonly rules: (platform: PlatformName, c: PublishContent) => ValidationIssue[]) {
    super(loadConfig({ NODE_ENV: 'test' }));
  }
  override get(platform: PlatformName): PlatformAdapter {
    return { platform, validate: (c: PublishContent) => this.rules(platform, c) } as unknown as PlatformAdapter;
  }
}

const FB = 'aaaaaaaa-0000-4000-8000-000000000001';
const YT = 'aaaaaaaa-0000-4000-8000-000000000002';

const rules = (platform: PlatformName, c: PublishContent): ValidationIssue[] => {
  const issues: ValidationIssue[] = [];
  if (platform === 'youtube' && !c.videoUrl) issues.push({ field: 'videoUrl', message: 'YouTube needs a video.' });
  if (platform === 'youtube' && !c.options.title)
    issues.push({ field: 'options.title', message: 'YouTube needs a title.' });
  if (c.text.length > 10) issues.push({ field: 'text', message: 'Too long.' });
  return issues;
};

describe('PostValidationService', () => {
  const service = new PostValidationService(new FakeRegistry(rules));
  const targets = [
    { accountId: FB, platform: 'facebook' as const },
    { accountId: YT, platform: 'youtube' as const },
  ];

  it('should name the account, the platform and the request field of each issue', () => {
    const req = normaliseCreate({
      content: { message: 'short', platformCaptions: { facebook: 'a caption that is too long' } },
    });
    expect(service.check(req.content, targets, req.paths)).toEqual([
      { accountId: FB, platform: 'facebook', field: 'content.platformCaptions.facebook', message: 'Too long.' },
      { accountId: YT, platform: 'youtube', field: 'content.videoUrl', message: 'YouTube needs a video.' },
      { accountId: YT, platform: 'youtube', field: 'content.youtube.title', message: 'YouTube needs a title.' },
    ]);
  });

  it('should map fields to the newer shape as it was sent', () => {
    const req = normaliseCreate({
      content: 'a text much longer than ten',
      accountIds: [YT],
      mediaUrls: ['https://x.test/a.png'],
      platforms: { facebook: {} },
    });
    expect(service.check(req.content, [targets[1]], req.paths).map((e) => e.field)).toEqual([
      'mediaUrls',
      'platforms.youtube.title',
      'content',
    ]);
  });

  it('should map fields to the legacy flat body', () => {
    const req = normaliseCreate({ message: 'way too long a message' } as never);
    expect(service.check(req.content, [targets[0]], req.paths)).toEqual([
      { accountId: FB, platform: 'facebook', field: 'message', message: 'Too long.' },
    ]);
  });

  it('should throw invalid_request with details.errors', () => {
    const req = normaliseCreate({ content: { message: 'ok' } });
    try {
      service.assertValid(req.content, targets, req.paths);
      throw new Error('expected invalid_request');
    } catch (err) {
      expect(err).toMatchObject({ code: 'invalid_request', details: { field: 'content.videoUrl' } });
      expect((err as { details: { errors: unknown[] } }).details.errors).toHaveLength(2);
      expect((err as Error).message).toContain('youtube');
    }
    expect(() => service.assertValid(req.content, [targets[0]], req.paths)).not.toThrow();
  });

  it('should point at per-account overrides', () => {
    const content = {
      contentType: 'text' as const,
      message: 'ok',
      perAccount: { [YT]: { caption: 'overridden caption', title: 'x' } },
    };
    expect(requestField('text', content, targets[1], STORED_PATHS)).toBe(`content.perAccount.${YT}.caption`);
    expect(requestField('options.title', content, targets[1], STORED_PATHS)).toBe(`content.perAccount.${YT}.title`);
    expect(requestField('imageUrls[2]', content, targets[1], STORED_PATHS)).toBe('content.imageUrls[2]');
    expect(requestField('youtube.privacyStatus', content, targets[1], STORED_PATHS)).toBe(
      'content.youtube.privacyStatus',
    );
    expect(requestField('videoUrl', { ...content, contentType: 'video' }, targets[1], STORED_PATHS)).toBe(
      'content.videoUrl',
    );
    expect(
      requestField('imageUrls', content, targets[1], { content: '', options: 'platforms.', media: 'mediaUrls' }),
    ).toBe('mediaUrls');
  });

  it('should find blocked terms case-insensitively and name the field', () => {
    const content = {
      contentType: 'text' as const,
      message: 'fine',
      platforms: { youtube: { title: 'Buy CRYPTO now' } },
    };
    expect(findBlockedTerm(content, ['crypto'], STORED_PATHS)).toEqual({
      term: 'crypto',
      field: 'content.youtube.title',
    });
    expect(findBlockedTerm(content, ['casino', ' '], STORED_PATHS)).toBeNull();
  });
});
