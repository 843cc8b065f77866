import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LEDGER_VERIFIER_KEY_TYPE } from '../../stack/ledger-verifier-key';
import { resourcesOfType } from '../cloud-assembly';
import { namesCustomResource } from './functions';
import type { Deployment, Provisioner } from './provisioner';

/** What a custom resource's function PUTs to the request's ResponseURL (CloudFormation's custom resource response). */
interface CustomResourceResponse {
  Status: 'SUCCESS' | 'FAILED';
  Reason?: string;
  PhysicalResourceId: string;
  Data?: Record<string, string>;
}

/**
 * The stack's own custom resources (Custom::LedgerVerifierKey): each one's function invoked with
 * the Create request CloudFormation sends, its answer taken at a local ResponseURL, its attributes
 * then known to the template's references, and the variables of the functions that name them set,
 * as CloudFormation creates those functions after the resource. A FAILED answer stops the run with
 * its reason, as it rolls a deployment back.
 */
export const customResources: Provisioner = {
  types: [LEDGER_VERIFIER_KEY_TYPE],
  async provision(deployment) {
    const { template, resolver, functions, log } = deployment;
    const resources = resourcesOfType(template, LEDGER_VERIFIER_KEY_TYPE);
    if (resources.length === 0) return;
    const answers = await responseEndpoint();
    try {
      for (const [id, resource] of resources) {
        const { ServiceToken, ...properties } = (resource.Properties ?? {}) as Record<string, unknown>;
        const serviceToken = String(resolver.resolve(ServiceToken));
        const fn = functions.find(serviceToken);
        if (!fn) throw new Error(`${id} (${resource.Type}): its function ${serviceToken} does not run here`);
        const requestId = randomUUID();
        const event = {
          RequestType: 'Create',
          ResponseURL: `${answers.url}/${requestId}`,
          StackId: resolver.ref('AWS::StackId'),
          RequestId: requestId,
          ResourceType: resource.Type,
          LogicalResourceId: id,
          ResourceProperties: { ServiceToken: serviceToken, ...resolver.resolve(properties) },
        };
        const outcome = await fn.host.invoke(event);
        if (!outcome.ok) throw new Error(`${id} (${resource.Type}): its function failed: ${outcome.errorMessage}`);
        const answer = answers.take(requestId);
        if (!answer) throw new Error(`${id} (${resource.Type}): its function returned without answering CloudFormation`);
        if (answer.Status !== 'SUCCESS') throw new Error(`${id} (${resource.Type}) failed: ${answer.Reason ?? 'no reason given'}`);
        resolver.defineCustomResource(id, answer.PhysicalResourceId, answer.Data ?? {});
        log(`CloudFormation  ${id} (${resource.Type}) created: ${answer.PhysicalResourceId}`);
      }
    } finally {
      await answers.close();
    }
    setDeferredVariables(deployment);
  },
};

/** Every function variable and stack output that names a custom resource, now that the resources have answered. */
function setDeferredVariables({ template, resolver, functions, outputs }: Deployment): void {
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    if (namesCustomResource(template, output.Value)) outputs[name] = String(resolver.resolve(output.Value));
  }
  for (const { host } of functions.all()) {
    const variables = (template.Resources[host.definition.logicalId]?.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(variables)) {
      if (namesCustomResource(template, value)) host.definition.environment[name] = String(resolver.resolve(value));
    }
  }
}

/** A local stand-in for the pre-signed S3 URL CloudFormation gives each request: it keeps every PUT body by request id. */
async function responseEndpoint() {
  const received = new Map<string, CustomResourceResponse>();
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        received.set(String(request.url).slice(1), JSON.parse(Buffer.concat(chunks).toString('utf8')) as CustomResourceResponse);
        response.writeHead(200).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    take: (requestId: string) => received.get(requestId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
