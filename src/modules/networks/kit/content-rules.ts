import type { PublishContent, ValidationIssue } from './adapter';

/** A network's rules for a post in PublishContent's own field names; its simulator enforces the same numbers. */
export interface ContentRules {
  label: string;
  maxText: number;
  /** How the network counts text (default: code points), and its unit in messages. */
  textLength?: (text: string) => number;
  textUnit?: string;
  maxHashtags?: number;
  /** A text-only post needs text, or text or a link; absent = text-only posts are refused. */
  textPost?: 'text' | 'text-or-link';
  /** Refusing a text-only post names this field (default `imageUrls`). */
  mediaField?: 'imageUrls' | 'contentType';
  requireVideo?: boolean;
  /** Images per image post (`min` and up publish as a carousel); max 0 = no images at all. */
  images: { max: number; carouselMin?: number };
  noImagesWithVideo?: boolean;
  /** Where a link preview may go: any post (default), text posts only, or nowhere. */
  links?: 'any' | 'text-posts' | 'never';
}

export const codePoints = (text: string): number => [...text].length;
export const countHashtags = (text: string): number => (text.match(/(^|\s)#[^\s#]+/gu) ?? []).length;

export function checkContent(r: ContentRules, c: PublishContent): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (field: string, message: string) => issues.push({ field, message });
  const length = (r.textLength ?? codePoints)(c.text);
  if (length > r.maxText)
    add('text', `${r.label} allows at most ${r.maxText} ${r.textUnit ?? 'characters'}; this text has ${length}.`);
  if (r.maxHashtags !== undefined && countHashtags(c.text) > r.maxHashtags)
    add('text', `${r.label} allows at most ${r.maxHashtags} hashtags.`);
  if (r.requireVideo && (c.contentType !== 'video' || !c.videoUrl)) add('videoUrl', `${r.label} needs one video.`);
  else if (c.contentType === 'video' && !c.videoUrl) add('videoUrl', 'A video post needs a video.');
  if (c.contentType === 'text' && !r.requireVideo) {
    if (!r.textPost) add(r.mediaField ?? 'imageUrls', `${r.label} posts need an image or a video.`);
    else if (!c.text.trim() && (r.textPost === 'text' || !c.link))
      add('text', `A ${r.label} text post needs text${r.textPost === 'text' ? '' : ' or a link'}.`);
  }
  if (r.images.max === 0 && c.imageUrls.length > 0) add('imageUrls', `${r.label} posts cannot carry images.`);
  else if (c.contentType === 'image' && c.imageUrls.length === 0)
    add('imageUrls', 'An image post needs at least one image.');
  else if (c.contentType === 'image' && c.imageUrls.length > r.images.max)
    add('imageUrls', `${r.label} allows at most ${r.images.max} images in one post.`);
  if (r.noImagesWithVideo && c.contentType === 'video' && c.imageUrls.length > 0)
    add('imageUrls', `${r.label} posts cannot mix a video with images.`);
  const refused = r.links === 'never' || (r.links === 'text-posts' && c.contentType !== 'text');
  const previews = r.links === 'never' ? 'on no post' : 'on text posts only';
  if (c.link && refused) add('link', `${r.label} shows link previews ${previews}; put the link in the text.`);
  return issues;
}
