import { Global, Module } from '@nestjs/common';
import { SecretBox } from './secret-box';

/** One SecretBox for the whole app (network tokens, webhook secrets, stored idempotent responses). */
@Global()
@Module({ providers: [SecretBox], exports: [SecretBox] })
export class CryptoModule {}
