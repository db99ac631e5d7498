/** The file types `POST /v1/media/upload` accepts, with the extension their keys get. */
export const ACCEPTED_MEDIA_TYPES = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
} as const;

export type AcceptedMediaType = keyof typeof ACCEPTED_MEDIA_TYPES;

export const ACCEPTED_TYPE_LIST = Object.keys(ACCEPTED_MEDIA_TYPES) as AcceptedMediaType[];

/** `image/PNG; charset=x` → `image/png` (media types are case-insensitive; parameters do not count). */
export function baseMediaType(value: string | undefined | null): string {
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

export function isAcceptedMediaType(value: string): value is AcceptedMediaType {
  return Object.prototype.hasOwnProperty.call(ACCEPTED_MEDIA_TYPES, value);
}

const TYPE_BY_EXTENSION = new Map<string, AcceptedMediaType>(
  Object.entries(ACCEPTED_MEDIA_TYPES).map(([type, ext]) => [ext, type as AcceptedMediaType]),
);

/** The type a stored key was signed for, from its extension (keys are made by `mediaKey`). */
export function mediaTypeOfKey(key: string): AcceptedMediaType | undefined {
  return TYPE_BY_EXTENSION.get(key.slice(key.lastIndexOf('.') + 1));
}

/** Keys are `<profileId>/<uuid>.<ext>`: no user text, so no path tricks and no encoding trouble. */
export const MEDIA_KEY_PATTERN = /^[0-9a-f-]{36}\/[0-9a-f-]{36}\.(jpg|png|gif|webp|mp4|mov)$/;

export function mediaKey(profileId: string, id: string, type: AcceptedMediaType): string {
  return `${profileId}/${id}.${ACCEPTED_MEDIA_TYPES[type]}`;
}

/** Largest body one signed PUT takes (both drivers: the bytes pass through this service to be checked). */
export const LOCAL_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** How long a signed upload URL stays valid. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;

/** Bytes `matchesSignature` needs to decide (shorter files are judged on what they have). */
export const SIGNATURE_BYTES = 12;

/**
 * Whether the first bytes of a file are those of `type` (its file signature, "magic number").
 * A stored object is served with its declared type, so bytes of another kind are refused.
 */
export function matchesSignature(type: AcceptedMediaType, head: Buffer): boolean {
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  switch (type) {
    case 'image/jpeg':
      return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case 'image/png':
      return head.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'));
    case 'image/gif':
      return ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a';
    case 'image/webp':
      return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
    case 'video/mp4':
      return ascii(4, 8) === 'ftyp';
    case 'video/quicktime':
      // ISO base media (ftyp) or a classic QuickTime file opening with another top-level atom.
      return ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(ascii(4, 8));
  }
}
