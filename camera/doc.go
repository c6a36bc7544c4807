// Package camera captures single still frames on demand for the photo
// modality of the AgentCall AG-UI extension 0.1 (spec "Agent-requested
// collection" and "Security, photos, and exact object lookup"): the user
// presses a visible control, the device opens, exposure settles, one frame
// is kept, and the device closes again, so the camera (and its light) is on
// only while a collection is in progress (docs/architecture.md, principle 3).
//
// Backends are github.com/pion/mediadevices drivers: Video4Linux2 cameras
// on Linux (V4L2 API, https://docs.kernel.org/userspace-api/media/v4l/v4l2.html)
// and mediadevices' videotest driver for tests and the demo (label
// "VideoTest"). Frames stay in memory; nothing here writes them to disk or
// logs them (principle 2).
//
// What a person waits for is press to sent, so the capture mode is the one
// estimated to deliver a settled frame of at least MinLongSide pixels
// soonest (mode.go: frame rate against raw/MJPEG conversion cost and size),
// and settling ends as soon as the mean luma has held still for a short
// time window rather than after a frame count (settle.go), capped by
// Settle.MaxFrames and MaxWait; an MJPEG frame that does not decode is
// skipped, and only a run of them fails the capture. cameratest provides a V4L2-like stand-in
// (mode list, paced frames, exposure ramp) for tests and
// bench/presstosent.
package camera
