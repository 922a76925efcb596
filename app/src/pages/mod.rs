mod home;
mod no_thread;
mod not_found;
mod thread;
mod usage;

pub use home::Home;
pub use no_thread::NoThread;
pub use not_found::NotFound;
pub use thread::ThreadPage;
pub use usage::Usage;
