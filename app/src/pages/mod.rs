mod automations;
mod devices;
mod home;
mod mobile;
mod no_thread;
mod not_found;
mod tasks;
mod thread;
mod usage;

pub use automations::Automations;
pub use devices::Devices;
pub use home::Home;
pub use mobile::{MobileHome, MobileStart};
pub use no_thread::NoThread;
pub use not_found::NotFound;
pub use tasks::Tasks;
pub use thread::ThreadPage;
pub use usage::Usage;
