import { AppError } from '../../lib/errors.js';

/** The errors of the video hand-off (codes of the catalogue in src/lib/errors.ts). */
export const webrtcErrors = {
  matchNotFound: () => new AppError('MATCH_NOT_FOUND'),
  matchNotAccepted: () => new AppError('MATCH_NOT_ACCEPTED', { message: 'Match is not accepted' }),
  invalidSignal: (message: string) => new AppError('INVALID_SIGNAL', { message }),
  unknownSignalKind: () => new AppError('UNKNOWN_SIGNAL_KIND'),
  signalTooLarge: (message: string) => new AppError('SIGNAL_TOO_LARGE', { message }),
  signalRateLimited: () => new AppError('SIGNAL_RATE_LIMITED'),
  signalBytesLimited: () =>
    new AppError('SIGNAL_RATE_LIMITED', { message: 'Too much signal data for this match, slow down' }),
  tooManyOpenTransfers: () => new AppError('TOO_MANY_OPEN_TRANSFERS'),
  transferNotFound: () => new AppError('TRANSFER_NOT_FOUND'),
  notTransferReceiver: () => new AppError('NOT_TRANSFER_RECEIVER'),
  transferNotOffered: () => new AppError('TRANSFER_NOT_OFFERED'),
  userBlocked: () => new AppError('USER_BLOCKED'),
} as const;
