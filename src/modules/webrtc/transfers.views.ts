/** Views of the video hand-off records (VideoTransfer, owned by this feature) that other features read. */

/**
 * Include for a match view: its completed hand-offs' receivers, so the view counts the videos
 * its viewer received (`videosReceived`) without another query.
 */
export const completedTransfersInclude = { where: { status: 'completed' }, select: { receiverId: true } } as const;

export const videosReceivedBy = (transfers: { receiverId: number }[], viewerId: number) =>
  transfers.filter((t) => t.receiverId === viewerId).length;
