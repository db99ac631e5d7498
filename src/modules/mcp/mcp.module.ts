import { Module } from '@nestjs/common';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** MCP server at /mcp: tools that forward to the REST API with the caller's key. */
@Module({
  controllers: [McpController],
  providers: [McpService],
})
export class McpModule {}
