import type { CfnTemplate } from './cloud-assembly';
import type { LocalAccount, PhysicalResource } from './physical-names';

/**
 * CloudFormation's intrinsic functions over a template, resolved against local physical names:
 * Ref (resources, parameters' defaults, pseudo parameters), Fn::GetAtt, Fn::Join, Fn::Sub,
 * Fn::Select, Fn::Split, Fn::If with the template's Conditions, Fn::FindInMap, Fn::Base64. What
 * cannot be known locally (Fn::ImportValue, an attribute no stand-in has) fails naming itself.
 */
export class IntrinsicResolver {
  private readonly conditions = new Map<string, boolean>();

  constructor(
    private readonly template: CfnTemplate,
    private readonly account: LocalAccount,
    private readonly physical: ReadonlyMap<string, PhysicalResource>,
  ) {}

  private pseudo(name: string): string | undefined {
    const { account, region, partition, urlSuffix, stackName } = this.account;
    switch (name) {
      case 'AWS::AccountId':
        return account;
      case 'AWS::Region':
        return region;
      case 'AWS::Partition':
        return partition;
      case 'AWS::URLSuffix':
        return urlSuffix;
      case 'AWS::StackName':
        return stackName;
      case 'AWS::StackId':
        return `arn:${partition}:cloudformation:${region}:${account}:stack/${stackName}/00000000-0000-4000-a000-000000000000`;
      default:
        return undefined;
    }
  }

  ref(name: string): unknown {
    const pseudo = this.pseudo(name);
    if (pseudo !== undefined) return pseudo;
    const resource = this.physical.get(name);
    if (resource) return resource.ref;
    const parameter = this.template.Parameters?.[name];
    if (parameter) return parameter.Default ?? '';
    throw new Error(`Ref to ${name}, which the template does not define`);
  }

  getAtt(logicalId: string, attribute: string): string {
    const resource = this.physical.get(logicalId);
    if (!resource) throw new Error(`Fn::GetAtt on ${logicalId}, which the template does not define`);
    const value = resource.attributes[attribute];
    if (value === undefined) throw new Error(`Fn::GetAtt ${logicalId}.${attribute}: not known locally (${this.template.Resources[logicalId].Type})`);
    return value;
  }

  /** A custom resource's physical id and attributes, known once its function has answered (as CloudFormation learns them). */
  defineCustomResource(logicalId: string, physicalId: string, attributes: Record<string, string>): void {
    const resource = this.physical.get(logicalId);
    if (!resource) throw new Error(`${logicalId} is not a resource of the template`);
    resource.ref = physicalId;
    Object.assign(resource.attributes, attributes);
  }

  condition(name: string): boolean {
    let value = this.conditions.get(name);
    if (value === undefined) {
      const definition = this.template.Conditions?.[name];
      if (definition === undefined) throw new Error(`condition ${name} is not defined`);
      value = Boolean(this.resolve(definition));
      this.conditions.set(name, value);
    }
    return value;
  }

  /** The value with every intrinsic function replaced by what it gives. */
  resolve(value: unknown): any {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [fn, arg] = entries[0];
      const resolved = this.intrinsic(fn, arg);
      if (resolved !== NOT_INTRINSIC) return resolved;
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]));
  }

  private intrinsic(fn: string, arg: unknown): unknown {
    switch (fn) {
      case 'Ref':
        return this.ref(String(arg));
      case 'Fn::GetAtt': {
        const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(/\.(.*)/);
        return this.getAtt(String(this.resolve(id)), String(this.resolve(attribute)));
      }
      case 'Fn::Join': {
        const [separator, parts] = arg as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [arg as string, {}];
        const own = this.resolve(variables) as Record<string, unknown>;
        return text.replace(/\$\{(!?)([^}]+)\}/g, (_match, literal: string, name: string) => {
          if (literal) return `\${${name}}`;
          if (name in own) return String(own[name]);
          if (name.includes('.')) {
            const [id, attribute] = name.split(/\.(.*)/);
            return this.getAtt(id, attribute);
          }
          return String(this.ref(name));
        });
      }
      case 'Fn::Select': {
        const [index, list] = arg as [unknown, unknown];
        return (this.resolve(list) as unknown[])[Number(this.resolve(index))];
      }
      case 'Fn::Split': {
        const [separator, text] = arg as [string, unknown];
        return String(this.resolve(text)).split(separator);
      }
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = arg as [string, unknown, unknown];
        return this.condition(condition) ? this.resolve(whenTrue) : this.resolve(whenFalse);
      }
      case 'Fn::Equals': {
        const [a, b] = this.resolve(arg) as [unknown, unknown];
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Not':
        return !(this.resolve(arg) as unknown[])[0];
      case 'Fn::And':
        return (this.resolve(arg) as unknown[]).every(Boolean);
      case 'Fn::Or':
        return (this.resolve(arg) as unknown[]).some(Boolean);
      case 'Condition':
        return this.condition(String(arg));
      case 'Fn::FindInMap': {
        const [map, top, second] = this.resolve(arg) as [string, string, string];
        return this.template.Mappings?.[map]?.[top]?.[second];
      }
      case 'Fn::Base64':
        return Buffer.from(String(this.resolve(arg))).toString('base64');
      case 'Fn::GetAZs':
        return ['a', 'b', 'c'].map((zone) => `${this.account.region}${zone}`);
      case 'Fn::ImportValue':
        throw new Error(`Fn::ImportValue ${JSON.stringify(arg)}: another stack's export cannot be known locally`);
      default:
        return NOT_INTRINSIC;
    }
  }
}

const NOT_INTRINSIC = Symbol('not an intrinsic function');
