import { Global, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Server } from 'node:http';
import { AppConfig } from '@/config/config';
import { MetricsService } from './metrics.service';
import { startWorkerMetricsServer } from './operator';

@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.role === 'worker') this.server = await startWorkerMetricsServer(this.metrics, this.config);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
