import { httpHandler } from '../functions/http/boundary';
export const handler = httpHandler(async () => ({ status: 200, body: {} }));
