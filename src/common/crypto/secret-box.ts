import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';

/**
 * AES-256-GCM for secrets at rest (network tokens, webhook signing secrets).
 * Ciphertext format: `<keyId>:<iv b64url>:<tag b64url>:<data b64url>`; the key id lets old
 * ciphertexts be read after the current key is rotated (TOKEN_ENCRYPTION_OLD_KEYS).
 */
@Injectable()
export class SecretBox {
  constructor(private readonly config: AppConfig) {}

  get currentKeyId(): string {
    return this.config.tokenKeys.currentId;
  }

  seal(plaintext: string): string {
    const keyId = this.config.tokenKeys.currentId;
    const key = this.config.tokenKeys.keys[keyId];
    if (!key) throw new Error(`No encryption key ${keyId}`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(keyId));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      keyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join(':');
  }

  open(sealed: string): string {
    const [keyId, iv, tag, data] = sealed.split(':');
    if (!keyId || !iv || !tag || data === undefined) throw new Error('Malformed ciphertext');
    const key = this.config.tokenKeys.keys[keyId];
    if (!key) throw new Error(`Unknown encryption key id ${keyId}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  keyIdOf(sealed: string): string {
    return sealed.split(':')[0] ?? '';
  }
}
