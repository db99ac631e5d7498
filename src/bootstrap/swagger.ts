import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from '../config/config';
import { addSuccessResponses, errorCodesMarkdown, finishOpenApiDocument } from './openapi-enrich';
import {
  WEBHOOKS_OPENAPI_EXTENSION,
  WEBHOOKS_TAG,
  WEBHOOKS_TAG_DESCRIPTION,
} from '../modules/webhooks/webhooks-openapi';

const DESCRIPTION = `Publish one post to many social accounts through one request shape.

**Authentication**: \`Authorization: Bearer svc_live_…\` on every /v1 endpoint.

**Errors**: every failure is \`{ error: { code, message, docsUrl, requestId, details? }, message }\`; branch on \`code\`. Send \`Service-Error-Format: legacy\` for \`{ error, code }\`. \`error.requestId\` equals the \`X-Request-Id\` header every response carries. The codes (also at \`/errors\`):

${errorCodesMarkdown()}

**Idempotency**: writes accept \`Idempotency-Key\` (24 h). A replay returns the stored response with \`Idempotent-Replayed: true\`; the same key with another body answers 409 \`idempotency_key_reused\`.

**Rate limits**: \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`, \`RateLimit-Policy\` on every response; 429 \`rate_limit_exceeded\` with \`Retry-After\`.

**Webhook signatures**: each delivery carries \`Service-Signature: t=<unix>,v1=<hex>\` where \`v1 = HMAC-SHA256(secret, "<t>." + rawBody)\`. Compare in constant time over the raw bytes and reject timestamps more than 300 s away.`;

export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Social Publishing Service API')
    .setDescription(DESCRIPTION)
    .setVersion('1.2.0')
    .setContact('API support', config.publicBaseUrl, 'support@example.com')
    .setLicense('Proprietary', `${config.publicBaseUrl}/docs`)
    .addServer(config.publicBaseUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_live_…', description: 'API key' }, 'bearer')
    .addTag(WEBHOOKS_TAG, WEBHOOKS_TAG_DESCRIPTION);
  addSuccessResponses(app);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return finishOpenApiDocument(Object.assign(document, WEBHOOKS_OPENAPI_EXTENSION), {
    docsBaseUrl: config.docsBaseUrl,
  });
}

export function setupSwagger(app: INestApplication, config: AppConfig): OpenAPIObject {
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Social Publishing Service API',
  });
  return document;
}
