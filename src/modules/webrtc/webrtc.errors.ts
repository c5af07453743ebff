import { AppError, badRequest, forbidden, Messages, notFound, tooManyRequests } from '../../lib/errors.js';

/**
 * The errors of the video hand-off, one code each (HTTP status and message). Socket acks carry
 * the same `{ error, code }`.
 */
export const webrtcErrors = {
  matchNotFound: () => notFound(Messages.matchNotFound, 'MATCH_NOT_FOUND'),
  matchNotAccepted: () => badRequest('Match is not accepted', 'MATCH_NOT_ACCEPTED'),
  invalidSignal: (message: string) => badRequest(message, 'INVALID_SIGNAL'),
  unknownSignalKind: () => badRequest('kind must be one of offer, answer, ice-candidate, hangup', 'UNKNOWN_SIGNAL_KIND'),
  signalTooLarge: (message: string) => new AppError(413, message, 'SIGNAL_TOO_LARGE'),
  signalRateLimited: () => tooManyRequests('Too many signals, slow down', 'SIGNAL_RATE_LIMITED'),
  transferNotFound: () => notFound('Transfer not found', 'TRANSFER_NOT_FOUND'),
  notTransferReceiver: () => forbidden('Only the receiver can complete a transfer', 'NOT_TRANSFER_RECEIVER'),
  transferNotOffered: () => badRequest('Transfer is not offered', 'TRANSFER_NOT_OFFERED'),
} as const;
