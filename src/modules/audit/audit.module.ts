import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RequestLogEntity } from '@/common/logging/request-log.entity';
import { EventEntity } from '@/common/outbox/event.entity';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

@Module({
  imports: [TypeOrmModule.forFeature([EventEntity, RequestLogEntity])],
  controllers: [AuditController],
  providers: [AuditService],
})
export class AuditModule {}
