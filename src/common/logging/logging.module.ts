import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LogFlushOnShutdown } from './log-destination';
import { RequestLogEntity } from './request-log.entity';
import { RequestLogMiddleware } from './request-log.middleware';
import { RequestLogService } from './request-log.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([RequestLogEntity])],
  providers: [RequestLogService, RequestLogMiddleware, LogFlushOnShutdown],
  exports: [RequestLogService, RequestLogMiddleware],
})
export class RequestLoggingModule {}
