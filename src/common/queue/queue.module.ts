import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueService } from './queue.service';

@Global()
@Module({ imports: [DiscoveryModule], providers: [QueueService], exports: [QueueService] })
export class QueueModule {}
