export const handler = async () => {};
