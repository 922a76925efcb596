mod home;
mod not_found;
mod usage;

pub use home::Home;
pub use not_found::NotFound;
pub use usage::Usage;
