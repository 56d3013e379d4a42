//! Linux's "Improve indirect addressing performance" patches measured on the model.

mod proof;
