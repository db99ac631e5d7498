import { Global, Module } from '@nestjs/common';
import { PlatformRegistry } from './network-registry';

@Global()
@Module({ providers: [PlatformRegistry], exports: [PlatformRegistry] })
export class NetworksModule {}
