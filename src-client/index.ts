/**
 * hookbench/client — an analytics client that batches identify/track/page/screen/group/alias calls
 * in memory and POSTs them to `{endpoint}/v1/batch` (Segment's HTTP Tracking API, Hookbench's ingest).
 */
export {
  Analytics,
  DEFAULT_ENDPOINT,
  LIBRARY_NAME,
  LIBRARY_VERSION,
  MAX_BATCH_BYTES,
  MAX_BATCH_MESSAGES,
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_ID_LENGTH,
} from './analytics.js';
export {
  AnalyticsClosedError,
  AnalyticsDeliveryError,
  AnalyticsValidationError,
  type DeliveryErrorCode,
  type ValidationCode,
} from './errors.js';
export type {
  AliasParams,
  AnalyticsEvents,
  AnalyticsOptions,
  AnalyticsStats,
  Attributes,
  ClientClock,
  ClientTimer,
  CommonFields,
  DeliveryBatch,
  DropReason,
  DroppedMessage,
  GroupParams,
  IdentifyParams,
  Identity,
  Integrations,
  MessageType,
  PageParams,
  ScreenParams,
  TrackParams,
} from './types.js';
