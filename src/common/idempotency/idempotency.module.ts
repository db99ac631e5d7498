import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdempotencyService } from './idempotency.service';
import { PurgeIdempotencyKeysJob } from './jobs/purge-idempotency-keys.job';

/** The IdempotencyInterceptor is bound to the write routes by idempotentWriteRoutes (AppModule). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyService, PurgeIdempotencyKeysJob],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
