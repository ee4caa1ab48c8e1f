/**
 * The Tracking API's size limits, shared by the ingest (which refuses what exceeds them) and the
 * client library (which never builds a request that would exceed them). One set, so the two sides
 * cannot drift apart again.
 *
 * This file has no imports: the client package compiles it along with itself.
 */
export const TRACKING_LIMITS = {
  /** Bytes of one message's JSON (32 KB). */
  maxMessageBytes: 32 * 1024,
  /**
   * Bytes of one batch request body, envelope included (Segment's "500 KB", counted as 500 × 1024).
   * Real SDKs pack below it and leave the rest for their envelope: analytics-node to 480 KB of
   * messages, analytics-python to about 475 KB plus one message.
   */
  maxBatchBytes: 500 * 1024,
  /** Messages in one batch request. */
  maxBatchItems: 2500,
  /** Characters of a messageId. */
  maxMessageIdLength: 100,
} as const;
