import type { IssuedCredentials } from '../iam/credentials';
import type { AsyncInvoker } from './event-sources';
import type { FunctionHost } from './function-host';

/** A function of the template running here: its host, its execution role's session, its asynchronous invocations. */
export interface LocalFunction {
  host: FunctionHost;
  credentials: IssuedCredentials;
  asyncInvoker: AsyncInvoker;
}

/** The functions running here, found as the template's triggers and integrations name them. */
export class LocalFunctions {
  private readonly byLogicalId = new Map<string, LocalFunction>();
  private readonly byArn = new Map<string, LocalFunction>();

  add(fn: LocalFunction): void {
    this.byLogicalId.set(fn.host.definition.logicalId, fn);
    this.byArn.set(fn.host.definition.arn, fn);
  }

  /** A function by its ARN or its name (undefined: it does not run here). */
  find(nameOrArn: string): LocalFunction | undefined {
    return this.byArn.get(nameOrArn) ?? this.all().find((f) => f.host.definition.name === nameOrArn);
  }

  all(): LocalFunction[] {
    return [...this.byLogicalId.values()];
  }

  /** The hosts by logical id. */
  hosts(): Map<string, FunctionHost> {
    return new Map(this.all().map((f) => [f.host.definition.logicalId, f.host]));
  }
}
