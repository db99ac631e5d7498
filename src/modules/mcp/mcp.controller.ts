import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import type { ServiceRequest } from '@/common/request/request-context';
import { McpService } from './mcp.service';

/**
 * MCP Streamable HTTP endpoint (not part of the REST document). Public to the global guard
 * because it checks the bearer key itself; each tool then calls a REST route with that key.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @All()
  @Public()
  handle(@Req() req: ServiceRequest, @Res() res: Response): Promise<void> {
    return this.mcp.handle(req, res);
  }
}
