/**
 * What the loopback fakes share (the replay and provider servers, the fake GitHub, the artifact
 * service): listen on 127.0.0.1 on a free port, read a request's body, and close without waiting
 * for clients.
 */
import type { IncomingMessage, Server } from 'node:http';

/** Listens on a free port of 127.0.0.1 and answers its base URL (`http://127.0.0.1:<port>`). */
export async function listenOnLoopback(server: Server, name: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error(`The ${name} has no TCP address.`);
  }
  return `http://127.0.0.1:${address.port}`;
}

/** Stops listening and drops every connection: streams held open must not keep it alive. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** A request's whole body as bytes (git's packs and Bedrock's signed bodies are binary). */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
