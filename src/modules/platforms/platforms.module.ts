import { Global, Module } from '@nestjs/common';
import { PlatformRegistry } from './platform-registry';

@Global()
@Module({ providers: [PlatformRegistry], exports: [PlatformRegistry] })
export class PlatformsModule {}
