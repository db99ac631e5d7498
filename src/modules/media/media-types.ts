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
  return (value ?? '').split(';')[0]!.trim().toLowerCase();
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

/** Largest body the local driver accepts in one PUT (the s3 driver sends bytes straight to the bucket). */
export const LOCAL_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** How long a signed upload URL stays valid. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;
