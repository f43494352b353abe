/** One recorded HTTP exchange: what was sent and what came back, kept for reports and reproduction. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** media type without parameters, lower case */
  mediaType?: string;
  /** decoded body: JSON value, MessagePack value, or text */
  body: unknown;
  raw: Buffer;
  decodeError?: string;
}

export interface Exchange {
  service: 'orders' | 'quotes' | 'control';
  operationId?: string;
  request: RecordedRequest;
  response: RecordedResponse;
  durationMs: number;
  attempts: number;
}
