import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';

const INFO = 'sps/media-upload-url/v1';

/**
 * HMAC-SHA256 tokens for the local driver's upload URLs, over method, key, content type and
 * expiry. The HMAC key is derived (HKDF) from the token-encryption key material, so there is no
 * extra secret to configure; the old keys still verify for a rotation's in-flight URLs.
 */
@Injectable()
export class UploadSigner {
  private readonly current: Buffer;
  private readonly all: Buffer[];

  constructor(config: AppConfig) {
    const derive = (ikm: Buffer) => Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), INFO, 32));
    this.current = derive(config.tokenKeys.keys[config.tokenKeys.currentId]);
    this.all = Object.values(config.tokenKeys.keys).map(derive);
  }

  sign(key: string, type: string, expires: number): string {
    return mac(this.current, key, type, expires);
  }

  /** True when `sig` was made by `sign` for exactly these values (expiry is checked by the caller). */
  verify(key: string, type: string, expires: number, sig: string): boolean {
    const given = Buffer.from(sig, 'base64url');
    return this.all.some((k) => {
      const expected = Buffer.from(mac(k, key, type, expires), 'base64url');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}

function mac(secret: Buffer, key: string, type: string, expires: number): string {
  return createHmac('sha256', secret).update(`PUT\n${key}\n${type}\n${expires}`).digest('base64url');
}
