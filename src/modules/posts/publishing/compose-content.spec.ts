import type { PostContent } from '../entities/post.entity';
import { composeFirstComment, composeOptions, composePublishContent, composeText } from './compose-content';

const FB = { platform: 'facebook' as const, accountId: 'acc-fb' };
const LI = { platform: 'linkedin' as const, accountId: 'acc-li' };
const post = (content: Partial<PostContent>, extra: { message?: string | null; caption?: string | null } = {}) => ({
  contentType: 'text' as const,
  message: extra.message ?? null,
  caption: extra.caption ?? null,
  content: { contentType: 'text' as const, ...content },
});

describe('composeText', () => {
  it('should use the post message when nothing more specific is given', () => {
    expect(composeText({ contentType: 'text', message: 'Hello' }, { message: null, caption: null }, FB)).toBe('Hello');
  });

  it('should fall back to the caption when there is no message', () => {
    expect(composeText({ contentType: 'text', caption: 'Cap' }, { message: null, caption: null }, FB)).toBe('Cap');
    expect(composeText({ contentType: 'text' }, { message: null, caption: 'Column caption' }, FB)).toBe(
      'Column caption',
    );
  });

  it('should prefer the platform caption over the message for that platform only', () => {
    const content: PostContent = {
      contentType: 'text',
      message: 'Hello',
      platformCaptions: { facebook: 'Hello FB' },
    };
    expect(composeText(content, { message: null, caption: null }, FB)).toBe('Hello FB');
    expect(composeText(content, { message: null, caption: null }, LI)).toBe('Hello');
  });

  it('should prefer the account override (caption, then message) over the platform caption', () => {
    const content: PostContent = {
      contentType: 'text',
      message: 'Hello',
      platformCaptions: { facebook: 'Hello FB' },
      perAccount: {
        'acc-fb': { caption: 'Hello page' },
        'acc-li': { message: 'Hello LI account' },
      },
    };
    expect(composeText(content, { message: null, caption: null }, FB)).toBe('Hello page');
    expect(composeText(content, { message: null, caption: null }, LI)).toBe('Hello LI account');
  });

  it('should keep an explicitly empty platform caption', () => {
    expect(
      composeText(
        {
          contentType: 'text',
          message: 'Hello',
          platformCaptions: { facebook: '' },
        },
        { message: null, caption: null },
        FB,
      ),
    ).toBe('');
  });

  it('should answer an empty string when the post has no text at all', () => {
    expect(
      composeText({ contentType: 'image', imageUrls: ['https://x/1.png'] }, { message: null, caption: null }, FB),
    ).toBe('');
  });
});

describe('composeOptions', () => {
  it('should merge the account overrides over the platform options, without the text fields', () => {
    const content: PostContent = {
      contentType: 'video',
      platforms: {
        youtube: { title: 'Platform title', privacyStatus: 'public' },
      },
      perAccount: {
        'acc-yt': { title: 'Account title', caption: 'not an option' },
      },
    };
    expect(composeOptions(content, { platform: 'youtube', accountId: 'acc-yt' })).toEqual({
      title: 'Account title',
      privacyStatus: 'public',
    });
  });

  it('should not leak one platform options into another', () => {
    const content: PostContent = {
      contentType: 'text',
      platforms: { youtube: { title: 'T' } },
    };
    expect(composeOptions(content, FB)).toEqual({});
  });

  it('should ignore a malformed per-account entry', () => {
    const content = {
      contentType: 'text',
      perAccount: { 'acc-fb': 'oops' },
    } as unknown as PostContent;
    expect(composeOptions(content, FB)).toEqual({});
    expect(composeText(content, { message: 'M', caption: null }, FB)).toBe('M');
  });
});

describe('composePublishContent', () => {
  it('should carry media, link and content type with the composed text and options', () => {
    const c = composePublishContent(
      post({
        contentType: 'image',
        message: 'Look',
        link: 'https://example.com',
        imageUrls: ['https://x/1.png'],
        platforms: { facebook: { published: true } },
      }),
      FB,
    );
    expect(c).toEqual({
      contentType: 'image',
      text: 'Look',
      link: 'https://example.com',
      imageUrls: ['https://x/1.png'],
      videoUrl: null,
      options: { published: true },
    });
  });
});

describe('composeFirstComment', () => {
  it("should take the account's own first comment over the post's, and keep it out of the options", () => {
    const content = {
      contentType: 'text' as const,
      firstComment: 'Link in bio',
      perAccount: { 'acc-li': { firstComment: 'Details below', visibility: 'PUBLIC' } },
    };
    expect(composeFirstComment(content, FB)).toBe('Link in bio');
    expect(composeFirstComment(content, LI)).toBe('Details below');
    expect(composeOptions(content, LI)).toEqual({ visibility: 'PUBLIC' });
  });

  it('should answer null when none is requested, or the account opts out with null or blank', () => {
    expect(composeFirstComment({}, FB)).toBeNull();
    expect(composeFirstComment({ firstComment: '  ' }, FB)).toBeNull();
    expect(composeFirstComment({ firstComment: 'x', perAccount: { 'acc-fb': { firstComment: null } } }, FB)).toBeNull();
    expect(composeFirstComment({ firstComment: 'x', perAccount: { 'acc-fb': { firstComment: '' } } }, FB)).toBeNull();
  });
});
