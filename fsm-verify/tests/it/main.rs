mod cover;
mod verify;
