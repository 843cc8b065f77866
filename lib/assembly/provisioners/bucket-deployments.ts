import { deployBucket, type BucketDeploymentProps } from '../bucket-deployments';
import { assetDirectory, resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

/**
 * Custom::CDKBucketDeployment: what each bucket deployment puts in its bucket (../bucket-deployments.ts),
 * after the API (and the distribution) are served, so that a document naming the deployed API's URL
 * (or the distribution's) names the local stage (or the local edge).
 */
export const bucketDeployments: Provisioner = {
  types: ['Custom::CDKBucketDeployment'],
  async provision({ template, resolver, account, assembly, services, api, localize = (text) => text }) {
    if (!api) throw new Error('bucket deployments are provisioned after the REST API');
    const apiUrl = new RegExp(`https://${String(resolver.ref(api.logicalId))}\\.execute-api\\.${account.region.replace(/[-.]/g, '\\$&')}\\.${account.urlSuffix.replace(/\./g, '\\.')}`, 'g');
    const invokeOrigin = new URL(api.invokeUrl).origin;
    for (const [id, resource] of resourcesOfType(template, 'Custom::CDKBucketDeployment')) {
      const props = resolver.resolve(resource.Properties ?? {}) as BucketDeploymentProps;
      await deployBucket(services.s3.admin, props, (key) => assetDirectory(assembly, key), (text) => localize(text.replace(apiUrl, invokeOrigin))).catch((error: Error) => {
        throw new Error(`bucket deployment ${id}: ${error.message}`);
      });
    }
  },
};
