mod cover;
mod liveness;
mod verify;
